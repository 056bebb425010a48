// What addon-exports.js exports.
/** The members of T that `Names` leaves out (`never` when it lists them all). */
export type MissingKeys<T, Names extends readonly PropertyKey[]> = Exclude<keyof T, Names[number]>;
/**
 * Asserts that `addon` exports exactly `names` plus `init` (every addon has one), in any order.
 * `names` must list every member of the addon's interface: a list that misses one does not compile
 * (the error names it, as `missing`), and one that names something else does not either.
 */
export function expectAddonExports<T extends object, const Names extends readonly (keyof T & string)[]>(
  addon: T,
  names: Names & ([MissingKeys<T, Names>] extends [never] ? unknown : { missing: MissingKeys<T, Names> }),
): void;
