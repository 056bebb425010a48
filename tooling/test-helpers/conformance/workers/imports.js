// What each worker of the conformance suite imports first: @rmmjs/core as the package under test
// resolves it (workerData.core, a URL: this package cannot depend on it), then the package that
// registers the resource's class (workerData.package), so that the resource comes as that class.
import { workerData } from 'node:worker_threads';

/** @type {typeof import('@rmmjs/core')} */
export const core = await import(workerData.core);
await import(workerData.package);
