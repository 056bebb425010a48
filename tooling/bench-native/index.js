// The benchmark addon, handed core's API table.
import { loadAdaptorAddon } from '@rmmjs/core/internal';

export const benchNative = loadAdaptorAddon(import.meta.url, './build/Release/rmmjs_bench_native.node', '@rmmjs/bench-native');
