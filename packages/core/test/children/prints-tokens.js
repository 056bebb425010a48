// Prints, as JSON, a share() token of the current device resource and a transfer() token of a
// buffer, which it then reclaims: tokens of another process, for the test's.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';

const token = new DeviceBuffer({ size: 8 }).transfer();
console.log(JSON.stringify([getCurrentDeviceResource().share(), token]));
DeviceBuffer.reclaim(token);
