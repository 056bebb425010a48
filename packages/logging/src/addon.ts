import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface LoggingAddon {
  create(upstream: ResourceHandle, logFileName: string, autoFlush: boolean): ResourceHandle;
  flush(mr: ResourceHandle): void;
  fileName(mr: ResourceHandle): string;
}

export const addon = loadPackageAddon<LoggingAddon>(import.meta.url, '..', '@rmmjs/logging');
