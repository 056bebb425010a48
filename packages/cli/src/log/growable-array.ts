type NumberArray = Uint8Array | Uint16Array | Int32Array | Float64Array;
type NumberArrayClass<T extends NumberArray> = { new (length: number): T; new (buffer: ArrayBufferLike): T };

/** A typed array that grows by doubling as values are pushed (a column of a parsed log). */
export class GrowableArray<T extends NumberArray> {
  #type: NumberArrayClass<T>;
  #values: T;
  length = 0;

  constructor(type: NumberArrayClass<T>, capacity = 1024) {
    this.#type = type;
    this.#values = new type(capacity);
  }

  push(value: number): void {
    if (this.length === this.#values.length) {
      const grown = new this.#type(this.#values.length * 2);
      grown.set(this.#values as never);
      this.#values = grown;
    }
    this.#values[this.length++] = value;
  }

  /** The values, in memory that worker threads can share. */
  shared(): T {
    const bytes = this.length * this.#values.BYTES_PER_ELEMENT;
    const out = new this.#type(new SharedArrayBuffer(bytes));
    out.set(this.#values.subarray(0, this.length) as never);
    return out;
  }
}
