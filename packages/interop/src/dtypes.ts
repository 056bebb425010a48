/** DLPack data types (DLDataType): a type code, bits per lane and lanes. */
import { invalidArgType, invalidArgValue, validateInteger } from '@rmmjs/core/internal';

/** A DLPack data type (DLDataType): a type code, bits per lane and lanes. */
export interface DLPackDType {
  /** DLDataTypeCode: 0 int, 1 uint, 2 float, 3 opaque handle, 4 bfloat, 5 complex, 6 bool, 7.. float8/6/4. */
  code: number;
  /** Bits per lane, e.g. 32 for `float32` (1 to 255). */
  bits: number;
  /** Lanes per element: 1 for a scalar, more for a vector type (1 to 65535). */
  lanes: number;
}

/** The dtypes toDLPack takes by name (as NumPy names them, plus bfloat16). */
export const dtypes = {
  /** Booleans, a byte each. */
  bool: {
    /** `kDLBool` (6). */
    code: 6,
    /** 8 bits per lane. */
    bits: 8,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Signed 8-bit integers. */
  int8: {
    /** `kDLInt` (0). */
    code: 0,
    /** 8 bits per lane. */
    bits: 8,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Signed 16-bit integers. */
  int16: {
    /** `kDLInt` (0). */
    code: 0,
    /** 16 bits per lane. */
    bits: 16,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Signed 32-bit integers. */
  int32: {
    /** `kDLInt` (0). */
    code: 0,
    /** 32 bits per lane. */
    bits: 32,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Signed 64-bit integers. */
  int64: {
    /** `kDLInt` (0). */
    code: 0,
    /** 64 bits per lane. */
    bits: 64,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Unsigned 8-bit integers. */
  uint8: {
    /** `kDLUInt` (1). */
    code: 1,
    /** 8 bits per lane. */
    bits: 8,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Unsigned 16-bit integers. */
  uint16: {
    /** `kDLUInt` (1). */
    code: 1,
    /** 16 bits per lane. */
    bits: 16,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Unsigned 32-bit integers. */
  uint32: {
    /** `kDLUInt` (1). */
    code: 1,
    /** 32 bits per lane. */
    bits: 32,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Unsigned 64-bit integers. */
  uint64: {
    /** `kDLUInt` (1). */
    code: 1,
    /** 64 bits per lane. */
    bits: 64,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** IEEE 754 half-precision floats. */
  float16: {
    /** `kDLFloat` (2). */
    code: 2,
    /** 16 bits per lane. */
    bits: 16,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** IEEE 754 single-precision floats. */
  float32: {
    /** `kDLFloat` (2). */
    code: 2,
    /** 32 bits per lane. */
    bits: 32,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** IEEE 754 double-precision floats. */
  float64: {
    /** `kDLFloat` (2). */
    code: 2,
    /** 64 bits per lane. */
    bits: 64,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Brain floats: 16 bits with float32's exponent. */
  bfloat16: {
    /** `kDLBfloat` (4). */
    code: 4,
    /** 16 bits per lane. */
    bits: 16,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Complex numbers of two float32s. */
  complex64: {
    /** `kDLComplex` (5). */
    code: 5,
    /** 64 bits per lane. */
    bits: 64,
    /** One lane: a scalar. */
    lanes: 1,
  },
  /** Complex numbers of two float64s. */
  complex128: {
    /** `kDLComplex` (5). */
    code: 5,
    /** 128 bits per lane. */
    bits: 128,
    /** One lane: a scalar. */
    lanes: 1,
  },
} as const satisfies Record<string, DLPackDType>;

/** The name of a dtype of `dtypes`, e.g. `'float32'`. */
export type DLPackDTypeName = keyof typeof dtypes;

/** A dtype option: a name of `dtypes`, or `{ code, bits, lanes? }`. */
export function dtypeArg(value: unknown, name: string): DLPackDType {
  if (typeof value === 'string') {
    if (Object.hasOwn(dtypes, value)) return dtypes[value as DLPackDTypeName];
    throw invalidArgValue(
      name,
      `must be one of ${Object.keys(dtypes).join(', ')} or { code, bits, lanes }, got '${value}'`,
    );
  }
  if (typeof value !== 'object' || value === null)
    throw invalidArgType(name, 'a dtype name or { code, bits, lanes }', value);
  const { code, bits, lanes = 1 } = value as Partial<DLPackDType>;
  return {
    code: validateInteger(code, `${name}.code`, 0, 255),
    bits: validateInteger(bits, `${name}.bits`, 1, 255),
    lanes: validateInteger(lanes, `${name}.lanes`, 1, 65535),
  };
}

/** The name of a dtype, or undefined for one without a name here. */
export function dtypeName({ code, bits, lanes }: DLPackDType): DLPackDTypeName | undefined {
  return (Object.keys(dtypes) as DLPackDTypeName[]).find(
    (name) => dtypes[name].code === code && dtypes[name].bits === bits && dtypes[name].lanes === lanes,
  );
}
