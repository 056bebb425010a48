// Prints 'imported' once core is imported (which loads no driver), then one line for what
// cuda.isAvailable() does and one for what a DeviceBuffer's allocation does: 'available' and
// 'allocated', or the error as JSON [class, code, message].
import { DeviceBuffer, cuda } from '@rmmjs/core';

/** @param {unknown} error */
const asJson = (error) => {
  const { code, message } = /** @type {{ code: string, message: string }} */ (error);
  return JSON.stringify([/** @type {object} */ (error).constructor.name, code, message]);
};

console.log('imported');
try {
  cuda.isAvailable();
  console.log('available');
} catch (error) {
  console.log(asJson(error));
}
try {
  new DeviceBuffer({ size: 8 });
  console.log('allocated');
} catch (error) {
  console.log(asJson(error));
}
