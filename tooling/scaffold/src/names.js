// The names a new resource package is stamped with, all from one kebab-case name: `counting` is
// @rmmjs/counting in packages/counting, class CountingResourceAdaptor (an adaptor) or
// CountingMemoryResource (a suballocator), in src/counting-resource-adaptor.ts and
// src/native/counting_resource_adaptor.{h,cc}, addon rmmjs_counting.

/** The kinds the scaffold makes, and what their class names end in. */
export const KINDS = { adaptor: 'ResourceAdaptor', suballocator: 'MemoryResource' };

/** A name the scaffold refuses (its message says why). */
export class NameError extends Error {
  name = 'NameError';
}

const pascal = (kebab) => kebab.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
const kebabOf = (pascalName) => pascalName.replace(/[A-Z]/g, (c, i) => (i === 0 ? '' : '-') + c.toLowerCase());

/** Every name derived from `name` for a resource of `kind`. */
export function namesFor(name, kind) {
  if (!(kind in KINDS)) throw new NameError(`unknown kind "${kind}" (${Object.keys(KINDS).join(', ')})`);
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name))
    throw new NameError(`"${name}" is not a package name: lower-case words joined by "-", such as "my-adaptor"`);
  const suffix = kind === 'adaptor' ? /-(resource-)?adaptor$/ : /-(memory-)?resource$/;
  if (suffix.test(name)) throw new NameError(`"${name}": leave out "${name.match(suffix)[0].slice(1)}", it is added`);
  const className = pascal(name) + KINDS[kind];
  const file = kebabOf(className);
  return {
    kind,
    folder: name,
    package: `@rmmjs/${name}`,
    className,
    shortName: pascal(name),
    file,
    snake: file.replaceAll('-', '_'),
    target: `rmmjs_${name.replaceAll('-', '_')}`,
  };
}
