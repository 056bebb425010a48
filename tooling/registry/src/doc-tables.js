// The tables of the docs that list packages and resources, made from the manifests and the
// registrations so that no resource is left out: the README's package table and the resource table
// of docs/rmm-python-to-rmmjs.md. Each stands between a BEGIN and an END marker in its file;
// `rmmjs-doc-tables --write` writes them, `--check` says which are out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registrationsOf, repositoryRoot, workspacePackages } from './index.js';

const UMBRELLA = 'rmmjs';
const CLI = '@rmmjs/cli';
const CORE = '@rmmjs/core';

const code = (text) => `\`${text}\``;
const cell = (text) => text.replaceAll('|', '\\|');

/** `new PoolMemoryResource(upstream, { initialPoolSize?, maximumPoolSize? })`: the constructor as called. */
export function constructorSignature(registration) {
  const args = registration.kind === 'base' ? [] : ['upstream'];
  for (const argument of registration.arguments) {
    args.push(
      argument.type === 'options'
        ? `{ ${Object.keys(argument.fields)
            .map((field) => `${field}?`)
            .join(', ')} }`
        : argument.name,
    );
  }
  return `new ${registration.class}(${args.join(', ')})`;
}

/** The rows of the resource table: package, RMM's Python names, the JavaScript ones. */
export function resourceRows(registrations) {
  return [
    '| package | Python | JavaScript |',
    '| --- | --- | --- |',
    ...registrations.map((registration) => {
      const python = registration.python === null ? '(none)' : registration.python.map(code).join(', ');
      const javascript = [constructorSignature(registration), ...registration.members].map(code).join(', ');
      return `| ${code(registration.package)} | ${cell(python)} | ${cell(javascript)} |`;
    }),
  ];
}

/**
 * The rows of the README's package table: core, the packages that register resources, the other
 * packages, the umbrella and the command last; each with its description, and the resources it
 * registers that the description does not name.
 */
export function packageRows(packages) {
  const rank = ({ manifest, registrations }) =>
    manifest.name === CORE
      ? 0
      : registrations.length > 0
        ? 1
        : manifest.name === UMBRELLA
          ? 3
          : manifest.name === CLI
            ? 4
            : 2;
  const sorted = packages
    .map((entry, index) => ({ ...entry, index }))
    .sort((a, b) => rank(a) - rank(b) || a.index - b.index);
  return [
    '| package | what |',
    '| --- | --- |',
    ...sorted.map(({ manifest, registrations }) => {
      const unnamed = registrations.filter((r) => !manifest.description.includes(r.class)).map((r) => code(r.class));
      const what = unnamed.length === 0 ? manifest.description : `${manifest.description}; ${unnamed.join(', ')}`;
      return `| ${code(manifest.name)} | ${cell(what)} |`;
    }),
  ];
}

const coreFirst = (packages) => [
  ...packages.filter(({ manifest }) => manifest.name === CORE),
  ...packages.filter(({ manifest }) => manifest.name !== CORE),
];

/** The generated tables: `{ file, name, rows }` for each, from the workspace at `root`. */
export function docTables(root = repositoryRoot) {
  const packages = workspacePackages(root)
    .filter(({ manifest }) => !manifest.private)
    .map(({ directory, manifest }) => ({ manifest, registrations: registrationsOf(manifest, directory) }));
  return [
    { file: 'README.md', name: 'packages', rows: packageRows(packages) },
    {
      file: join('docs', 'rmm-python-to-rmmjs.md'),
      name: 'resources',
      rows: resourceRows(coreFirst(packages).flatMap(({ registrations }) => registrations)),
    },
  ];
}

const begin = (name) => `<!-- BEGIN ${name}: generated from the packages' manifests by \`pnpm run docs:tables\` -->`;
const end = (name) => `<!-- END ${name} -->`;

/** `text` with the table between its markers replaced by `rows` (an error when a marker is missing). */
export function replaceTable(text, name, rows, file) {
  const start = text.indexOf(begin(name));
  const stop = text.indexOf(end(name));
  if (start === -1 || stop === -1 || stop < start)
    throw new Error(`${file}: no table "${name}" (it stands between the lines "${begin(name)}" and "${end(name)}")`);
  return `${text.slice(0, start)}${begin(name)}\n${rows.join('\n')}\n${text.slice(stop)}`;
}

/** The files whose tables are out of date; with `write`, writes them. */
export function updateDocTables({ root = repositoryRoot, write = false } = {}) {
  const stale = [];
  for (const { file, name, rows } of docTables(root)) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const updated = replaceTable(text, name, rows, file);
    if (updated === text) continue;
    stale.push(file);
    if (write) writeFileSync(path, updated);
  }
  return stale;
}
