/**
 * Loads a package's native addon (`build/Release/<name>.node` beside its `dist/`). When that
 * fails, one error lists what to do about it.
 */
export declare function loadAddon<T>(packageUrl: string, name: string, packageName: string): T;
