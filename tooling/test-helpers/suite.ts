// `@rmmjs/test-helpers` as the suites import it (vitest.config.js maps the name here, and
// TypeScript reads it through `types`): the helpers of index.js and the conformance suite, whose
// TypeScript only vitest loads. A plain node (a child process, a worker) gets index.js.
export * from './index.js';
export { conformanceCases, conformanceSeed, describeConformance } from './conformance/index.js';
export type { ConformanceOptions } from './conformance/types.js';
