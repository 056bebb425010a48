/**
 * RMM's enable_logging / disable_logging / get_log_filenames: a LoggingResourceAdaptor on top of
 * every initialized device's resource (the devices that have a resource in the registry, or
 * device 0 when none has), one file per device.
 */
import { basename, extname } from 'node:path';
import { getPerDeviceResource, setPerDeviceResource } from '@rmmjs/core';
import { invalidArgType, native, validateInteger } from '@rmmjs/core/internal';
import { LoggingResourceAdaptor, logFileNameArg } from './logging-resource-adaptor.js';

function initializedDevices(): number[] {
  const devices = native.initializedDevices();
  return devices.length > 0 ? devices : [0];
}

/** `rmm_log.csv` -> `rmm_log.dev0.csv` (Python's os.path.splitext: a leading dot is no extension). */
function fileNameForDevice(logFileName: string, device: number): string {
  const extension = extname(basename(logFileName));
  const stem = logFileName.slice(0, logFileName.length - extension.length);
  return `${stem}.dev${device}${extension}`;
}

/**
 * The file device `device` logs to when logging is enabled for every device (`enableLogging`,
 * `reinitialize({ logging: true })`): `logFileName` (default `$RMM_LOG_FILE`; neither ->
 * ERR_INVALID_ARG_VALUE) with `.dev<device>` before the extension, made absolute. `name` is the
 * argument errors name.
 */
export function logFileNameForDevice(logFileName: string | undefined, device: number, name = 'logFileName'): string {
  if (typeof name !== 'string') throw invalidArgType('name', 'of type string', name);
  return fileNameForDevice(logFileNameArg(logFileName, name), validateInteger(device, 'device', 0));
}

/**
 * Logs every allocation on every initialized device: device N writes `logFileName` (default
 * `$RMM_LOG_FILE`; neither -> ERR_INVALID_ARG_VALUE) with `.devN` before the extension, made
 * absolute. Devices already logging are left as they are. Every file is opened before any device
 * changes: one that cannot be (`ERR_RMM_LOGIC`) leaves every device as it was.
 */
export function enableLogging(logFileName?: string): void {
  const name = logFileNameArg(logFileName);
  const adaptors: Array<[number, LoggingResourceAdaptor]> = [];
  try {
    for (const device of initializedDevices()) {
      const mr = getPerDeviceResource(device);
      if (mr instanceof LoggingResourceAdaptor) continue;
      adaptors.push([device, new LoggingResourceAdaptor(mr, { logFileName: fileNameForDevice(name, device) })]);
    }
  } catch (error) {
    for (const [, adaptor] of adaptors) adaptor[Symbol.dispose]();
    throw error;
  }
  for (const [device, adaptor] of adaptors) setPerDeviceResource(device, adaptor);
}

/** Puts back the upstream of every device's LoggingResourceAdaptor, after writing out its file. */
export function disableLogging(): void {
  for (const device of native.initializedDevices()) {
    const mr = getPerDeviceResource(device);
    if (!(mr instanceof LoggingResourceAdaptor)) continue;
    setPerDeviceResource(device, mr.upstreamMr);
    mr.flush();
  }
}

/** The log file of each initialized device, `null` for a device that is not logging. */
export function getLogFilenames(): Record<number, string | null> {
  const names: Record<number, string | null> = {};
  for (const device of native.initializedDevices()) {
    const mr = getPerDeviceResource(device);
    names[device] = mr instanceof LoggingResourceAdaptor ? mr.getFileName() : null;
  }
  return names;
}
