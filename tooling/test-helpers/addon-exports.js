// The JS <-> native boundary: what an addon exports, against the interface its TypeScript declares.
import { expect } from 'vitest';

/**
 * Asserts that `addon` exports exactly `names` and `init` (every addon has one: RMMJS_ADDON's, or
 * core's own), in any order. index.d.ts makes `names` list every member of the addon's interface,
 * so that an export added, removed or renamed on either side fails.
 */
export function expectAddonExports(addon, names) {
  expect(Object.keys(addon).sort()).toEqual([...new Set([...names, 'init'])].sort());
}
