/** DLPack data types (DLDataType): a type code, bits per lane and lanes. */
import { invalidArgType, invalidArgValue, validateInteger } from '@rmmjs/core/internal';

export interface DLPackDType {
  /** DLDataTypeCode: 0 int, 1 uint, 2 float, 3 opaque handle, 4 bfloat, 5 complex, 6 bool, 7.. float8/6/4. */
  code: number;
  bits: number;
  lanes: number;
}

/** The dtypes toDLPack takes by name (as NumPy names them, plus bfloat16). */
export const dtypes = {
  bool: { code: 6, bits: 8, lanes: 1 },
  int8: { code: 0, bits: 8, lanes: 1 },
  int16: { code: 0, bits: 16, lanes: 1 },
  int32: { code: 0, bits: 32, lanes: 1 },
  int64: { code: 0, bits: 64, lanes: 1 },
  uint8: { code: 1, bits: 8, lanes: 1 },
  uint16: { code: 1, bits: 16, lanes: 1 },
  uint32: { code: 1, bits: 32, lanes: 1 },
  uint64: { code: 1, bits: 64, lanes: 1 },
  float16: { code: 2, bits: 16, lanes: 1 },
  float32: { code: 2, bits: 32, lanes: 1 },
  float64: { code: 2, bits: 64, lanes: 1 },
  bfloat16: { code: 4, bits: 16, lanes: 1 },
  complex64: { code: 5, bits: 64, lanes: 1 },
  complex128: { code: 5, bits: 128, lanes: 1 },
} as const satisfies Record<string, DLPackDType>;

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
