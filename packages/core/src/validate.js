/** Argument checks with Node's error codes. Cheap: they run on every hot-path call. */
import { invalidArgType, outOfRange } from './errors.js';
import { parseBytes } from './parse-bytes.js';
/** A byte count: a non-negative safe integer. */
export function validateSize(value, name) {
    if (typeof value !== 'number')
        throw invalidArgType(name, 'of type number', value);
    if (!Number.isSafeInteger(value) || value < 0) {
        throw outOfRange(name, 'a non-negative safe integer (0 to 2^53 - 1)', value);
    }
    return value;
}
/** A size option of a resource: a byte count or a byte string (`"1 GiB"`). */
export function validateSizeOption(value, name) {
    if (typeof value === 'string') {
        try {
            return parseBytes(value);
        }
        catch (error) {
            error.message = error.message.replace('"s"', `"${name}"`);
            throw error;
        }
    }
    if (typeof value !== 'number')
        throw invalidArgType(name, 'of type number or string', value);
    return validateSize(value, name);
}
export function validateInteger(value, name, min = -(2 ** 31), max = 2 ** 31 - 1) {
    if (typeof value !== 'number')
        throw invalidArgType(name, 'of type number', value);
    if (!Number.isInteger(value) || value < min || value > max) {
        throw outOfRange(name, `an integer >= ${min} and <= ${max}`, value);
    }
    return value;
}
export function validateBoolean(value, name) {
    if (typeof value !== 'boolean')
        throw invalidArgType(name, 'of type boolean', value);
    return value;
}
export function validateFunction(value, name) {
    if (typeof value !== 'function')
        throw invalidArgType(name, 'of type function', value);
    return value;
}
/** An options object: undefined means {}. */
export function validateOptions(value, name = 'options') {
    if (value === undefined)
        return {};
    if (value === null || typeof value !== 'object')
        throw invalidArgType(name, 'of type object', value);
    return value;
}
//# sourceMappingURL=validate.js.map