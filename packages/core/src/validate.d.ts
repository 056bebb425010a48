/** A byte count: a non-negative safe integer. */
export declare function validateSize(value: unknown, name: string): number;
/** A size option of a resource: a byte count or a byte string (`"1 GiB"`). */
export declare function validateSizeOption(value: unknown, name: string): number;
export declare function validateInteger(value: unknown, name: string, min?: number, max?: number): number;
export declare function validateBoolean(value: unknown, name: string): boolean;
export declare function validateFunction<T extends Function>(value: unknown, name: string): T;
/** An options object: undefined means {}. */
export declare function validateOptions<T extends object>(value: unknown, name?: string): Partial<T>;
