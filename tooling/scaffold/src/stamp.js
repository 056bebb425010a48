// Stamps a new resource package from templates/common/ and templates/<kind>/: every file with its
// {{placeholders}} filled in, the package.json and CMakeLists.txt from layout.js, formatted as
// `pnpm format` would. In the workspace it also makes the edits a new package needs elsewhere: the
// umbrella's dependency, the lockfile (`pnpm install`), the docs' tables and a changeset.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repositoryRoot } from '@rmmjs/registry';
import { updateDocTables } from '@rmmjs/registry/doc-tables';
import { cmakeLists, packageManifest } from './layout.js';
import { namesFor } from './names.js';

const templates = join(dirname(fileURLToPath(import.meta.url)), '..', 'templates');

/** What the template's placeholders stand for. */
const fill = (text, names) =>
  text.replace(/\{\{(\w+)\}\}/g, (whole, key) => {
    if (!(key in names)) throw new Error(`template placeholder ${whole} has no value`);
    return names[key];
  });

/** The files of one template folder: `{ path, text }`, the path relative to the package, without `.tmpl`. */
function renderFolder(folder, names) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!OWN_FILES.includes(relative(folder, path)))
        files.push({
          path: fill(relative(folder, path), names).replace(/\.tmpl$/, ''),
          text: fill(readFileSync(path, 'utf8'), names),
        });
    }
  };
  walk(folder);
  return files;
}

// The files of a kind's folder that are not copied into the package: its changeset, and what its
// package.json and CMakeLists.txt say (description, registrations, native sources).
const OWN_FILES = ['changeset.md.tmpl', 'registration.json.tmpl'];

/**
 * The package's files: those of templates/common/ and of templates/<kind>/ (which wins where both
 * have a file), the package.json and the CMakeLists.txt.
 */
export function renderTemplate(names) {
  const folder = join(templates, names.kind);
  if (!existsSync(folder))
    throw new Error(`there is no ${names.kind} template (tooling/scaffold/templates/${names.kind})`);
  const own = renderFolder(folder, names);
  const common = renderFolder(join(templates, 'common'), names).filter(
    (file) => !own.some((mine) => mine.path === file.path),
  );
  const { description, resources, nativeSources } = JSON.parse(
    fill(readFileSync(join(folder, 'registration.json.tmpl'), 'utf8'), names),
  );
  const manifest = packageManifest({ name: names.package, folder: names.folder, description, resources });
  return [
    ...common,
    ...own,
    { path: 'package.json', text: `${JSON.stringify(manifest, null, 2)}\n` },
    { path: 'CMakeLists.txt', text: cmakeLists(names.target, nativeSources) },
  ];
}

/** The changeset of the new package. */
export const renderChangeset = (names) =>
  fill(readFileSync(join(templates, names.kind, 'changeset.md.tmpl'), 'utf8'), names);

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr}`);
}

/** Formats the files as `pnpm format` does: Prettier, clang-format for C and C++. */
function format(directory, paths, root) {
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  const config = ['--config', join(root, '.prettierrc.json')];
  run(
    bin('prettier'),
    ['--write', '--log-level', 'warn', ...config, ...paths.filter((p) => /\.(ts|js|json)$/.test(p))],
    directory,
  );
  const native = paths.filter((p) => /\.(cc|h)$/.test(p));
  if (native.length > 0)
    run(bin('clang-format'), ['-i', `--style=file:${join(root, '.clang-format')}`, ...native], directory);
}

/** Adds `name` to the umbrella's dependencies (in order); returns the manifest's new text. */
export function withUmbrellaDependency(manifestText, name) {
  const manifest = JSON.parse(manifestText);
  manifest.dependencies = Object.fromEntries(
    Object.entries({ ...manifest.dependencies, [name]: 'workspace:^' }).sort(([a], [b]) => a.localeCompare(b)),
  );
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * Stamps the package `name` of `kind` into `<into>/<name>` (default: the workspace's packages/).
 * `workspace`: also make the edits outside the folder and run `pnpm install`. Returns the folder
 * and the files written, relative to the repository (or to `into`).
 */
export function stamp(
  name,
  kind,
  { into = join(repositoryRoot, 'packages'), workspace = true, root = repositoryRoot } = {},
) {
  const names = namesFor(name, kind);
  const directory = join(into, names.folder);
  if (existsSync(directory)) throw new Error(`${directory} exists already`);
  const files = renderTemplate(names);
  for (const { path, text } of files) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), text);
  }
  format(
    directory,
    files.map((file) => file.path),
    root,
  );
  const written = files.map((file) => join(directory, file.path));
  if (workspace) {
    const umbrella = join(root, 'packages', 'rmmjs', 'package.json');
    writeFileSync(umbrella, withUmbrellaDependency(readFileSync(umbrella, 'utf8'), names.package));
    const changeset = join(root, '.changeset', `${names.folder}.md`);
    writeFileSync(changeset, renderChangeset(names));
    run('pnpm', ['install'], root);
    const tables = updateDocTables({ root, write: true }).map((file) => join(root, file));
    written.push(umbrella, changeset, join(root, 'pnpm-lock.yaml'), ...tables);
  }
  return { names, directory, written };
}
