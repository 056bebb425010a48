// What a registration may say, and the defaults of what it leaves out. Every field is checked, and
// a field this file does not know is an error: a misspelt field would otherwise be ignored.

/** A registration that is not well formed; the message names the package and the field. */
export class RegistrationError extends Error {
  name = 'RegistrationError';
}

const KINDS = ['base', 'adaptor', 'suballocator'];
const NEEDS = ['cuda', 'pageableMemoryAccess'];
const CALLS_JAVASCRIPT = ['always', 'onFailure'];
const COUNTER_UNITS = ['bytes', 'alignedBytes', 'count', 'statistics'];
const ERROR_KINDS = ['logic', 'oom', 'range', 'value', 'cuda'];
const BACKENDS = ['host', 'fake', 'gpu'];
const ARGUMENT_TYPES = ['size', 'integer', 'boolean', 'fileName', 'options', 'memoryPool', 'function'];

const isString = (value) => typeof value === 'string' && value !== '';
const isStringList = (value) => Array.isArray(value) && value.every(isString);
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const isName = (value) => isString(value) && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(value);
const isIdentifierList = (value) => Array.isArray(value) && value.every(isName);
const list = (values) => values.map((value) => `"${value}"`).join(', ');

/** `raw` checked; the result has every field, defaults filled in. `where` starts each message. */
export function checkRegistration(raw, where) {
  const fail = (message) => {
    throw new RegistrationError(`${where}: ${message}`);
  };
  if (!isObject(raw)) fail('a registration must be an object');
  const fields = {
    class: () => isName(raw.class) && /(MemoryResource|ResourceAdaptor)$/.test(raw.class),
    kind: () => KINDS.includes(raw.kind),
    python: () => raw.python === null || (isStringList(raw.python) && raw.python.length > 0),
    arguments: () => Array.isArray(raw.arguments),
    umbrella: () => isString(raw.umbrella) && /^mr(\.[a-z]+)*$/.test(raw.umbrella),
    types: () => isIdentifierList(raw.types),
    exports: () => isIdentifierList(raw.exports),
    members: () => isStringList(raw.members),
    example: () => Array.isArray(raw.example),
    needs: () => Array.isArray(raw.needs) && raw.needs.every((need) => NEEDS.includes(need)),
    hostAccessible: () => typeof raw.hostAccessible === 'boolean',
    managed: () => typeof raw.managed === 'boolean',
    equalInstances: () => typeof raw.equalInstances === 'boolean',
    freesAnything: () => typeof raw.freesAnything === 'boolean',
    callsJavaScript: () => CALLS_JAVASCRIPT.includes(raw.callsJavaScript),
    counters: () => isObject(raw.counters) && Object.values(raw.counters).every((unit) => COUNTER_UNITS.includes(unit)),
    cannot: () => isObject(raw.cannot) && Object.values(raw.cannot).every(isCannot),
    errors: () => Array.isArray(raw.errors) && raw.errors.every((kind) => ERROR_KINDS.includes(kind)),
  };
  const expected = {
    class: 'a class name ending in MemoryResource or ResourceAdaptor',
    kind: `one of ${list(KINDS)}`,
    python: "a list of RMM's Python names (code), or null where RMM has none",
    arguments: "a list of the constructor's arguments after the upstream",
    umbrella: 'the namespace of the umbrella package, such as "mr"',
    types: 'a list of type names',
    exports: 'a list of export names',
    members: 'a list of member names (code)',
    example: 'a list of constructor arguments after the upstream',
    needs: `a list of ${list(NEEDS)}`,
    hostAccessible: 'true or false',
    managed: 'true or false',
    equalInstances: 'true or false',
    freesAnything: 'true or false',
    callsJavaScript: `one of ${list(CALLS_JAVASCRIPT)}`,
    counters: `an object of member names to one of ${list(COUNTER_UNITS)}`,
    cannot: 'an object of conformance cases to { "on": [backends], "why": "..." }',
    errors: `a list of ${list(ERROR_KINDS)}`,
  };
  for (const key of Object.keys(raw))
    if (!(key in fields)) fail(`unknown field "${key}" (${Object.keys(fields).join(', ')})`);
  for (const key of ['class', 'kind', 'python', 'arguments'])
    if (!(key in raw)) fail(`"${key}" is required (${expected[key]})`);
  for (const [key, valid] of Object.entries(fields))
    if (key in raw && !valid()) fail(`"${key}" must be ${expected[key]}, not ${JSON.stringify(raw[key])}`);
  const baseOnly = ['hostAccessible', 'managed', 'freesAnything'].filter((key) => key in raw);
  if (raw.kind !== 'base' && baseOnly.length > 0) fail(`"${baseOnly[0]}" is for base resources only`);
  const args = raw.arguments.map((argument, i) => checkArgument(argument, `${where}, arguments[${i}]`));
  if (raw.example !== undefined && raw.example.length > args.length)
    fail(`"example" has ${raw.example.length} arguments, the constructor ${args.length}`);
  return {
    class: raw.class,
    kind: raw.kind,
    upstreams: raw.kind === 'base' ? 0 : 1,
    python: raw.python,
    arguments: args,
    umbrella: raw.umbrella ?? 'mr',
    types: raw.types ?? [],
    exports: raw.exports ?? [],
    members: raw.members ?? [],
    example: raw.example,
    needs: raw.needs ?? [],
    hostAccessible: raw.hostAccessible,
    managed: raw.managed ?? false,
    equalInstances: raw.equalInstances ?? false,
    freesAnything: raw.freesAnything ?? false,
    callsJavaScript: raw.callsJavaScript,
    counters: raw.counters ?? {},
    cannot: raw.cannot ?? {},
    errors: raw.errors ?? [],
  };
}

function isCannot(value) {
  return (
    isObject(value) &&
    Object.keys(value).every((key) => key === 'on' || key === 'why') &&
    Array.isArray(value.on) &&
    value.on.every((backend) => BACKENDS.includes(backend)) &&
    isString(value.why)
  );
}

// What each argument type may say besides "name" and "type" (true: required).
const ARGUMENT_FIELDS = {
  size: { bytes: false, min: false, max: false },
  integer: { min: true, max: true },
  boolean: {},
  fileName: { requiredUnlessEnv: false },
  options: { fields: true },
  memoryPool: {},
  function: {},
};

/**
 * One constructor argument: `{ name, type, ... }`. `size`: a byte count or count (`bytes`: byte
 * strings such as "1 MiB" too; `min`, `max`: the range it must be in); `integer`: `min`, `max`;
 * `boolean`; `fileName` (`requiredUnlessEnv`: the variable that names a default);
 * `options`: an optional object of `fields`, each an argument without a name; `memoryPool`: a CUDA
 * memory pool handle (bigint); `function`: a JavaScript callback.
 */
function checkArgument(raw, where, named = true) {
  const fail = (message) => {
    throw new RegistrationError(`${where}: ${message}`);
  };
  if (!isObject(raw)) fail('an argument must be an object');
  if (named && !isName(raw.name)) fail('"name" must be the argument\'s name');
  if (!ARGUMENT_TYPES.includes(raw.type)) fail(`"type" must be one of ${list(ARGUMENT_TYPES)}`);
  const allowed = ARGUMENT_FIELDS[raw.type];
  for (const key of Object.keys(raw)) {
    if (key === 'type' || (named && key === 'name')) continue;
    if (!(key in allowed)) fail(`unknown field "${key}" for a ${raw.type} argument`);
  }
  for (const [key, required] of Object.entries(allowed))
    if (required && !(key in raw)) fail(`"${key}" is required for a ${raw.type} argument`);
  for (const key of ['min', 'max'])
    if (key in raw && !Number.isSafeInteger(raw[key])) fail(`"${key}" must be a whole number`);
  if ('bytes' in raw && typeof raw.bytes !== 'boolean') fail('"bytes" must be true or false');
  if ('requiredUnlessEnv' in raw && !isString(raw.requiredUnlessEnv))
    fail('"requiredUnlessEnv" must be the name of an environment variable');
  const argument = { ...(named ? { name: raw.name } : {}), type: raw.type };
  if (raw.type === 'size') Object.assign(argument, { bytes: raw.bytes ?? false, min: raw.min ?? 0, max: raw.max });
  if (raw.type === 'integer') Object.assign(argument, { min: raw.min, max: raw.max });
  if (raw.type === 'fileName') argument.requiredUnlessEnv = raw.requiredUnlessEnv;
  if (raw.type === 'options') {
    if (!isObject(raw.fields) || Object.keys(raw.fields).length === 0)
      fail('"fields" must be an object of option names to arguments');
    argument.fields = Object.fromEntries(
      Object.entries(raw.fields).map(([key, field]) => {
        if (!isName(key)) fail(`"${key}" is not an option name`);
        return [key, checkArgument(field, `${where}, fields.${key}`, false)];
      }),
    );
  }
  return argument;
}
