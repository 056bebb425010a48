// On a driver with no devices: prints whether CUDA is available and the device count, then the code
// of a CudaMemoryResource's construction and whether its message says no GPU was found, then the
// bytes of a DeviceBuffer and the current device resource's class.
import { CudaMemoryResource, DeviceBuffer, cuda, getCurrentDeviceResource } from '@rmmjs/core';

console.log(cuda.isAvailable(), cuda.getDeviceCount());
try {
  new CudaMemoryResource();
} catch (error) {
  const { code, message } = /** @type {{ code: string, message: string }} */ (error);
  console.log(code, message.includes('found no usable GPU'));
}
const buffer = new DeviceBuffer({ data: new Uint8Array([7, 8]) });
console.log(buffer.toBytes().join(','), getCurrentDeviceResource().constructor.name);
