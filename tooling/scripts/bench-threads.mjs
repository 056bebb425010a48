// Operations per second with N worker threads sharing one resource: in @rmmjs/cli, which `rmmjs
// bench` runs too.
export { threadOpsPerSecond } from '@rmmjs/cli';
