/**
 * A byte count from a number or a string such as `"2kib"` (2048) or `"1.5 GB"` (1500000000).
 * SI (kb..pb) and binary (kib..pib) units; the `b` is required (`"2k"` does not parse).
 */
export declare function parseBytes(s: number | string): number;
