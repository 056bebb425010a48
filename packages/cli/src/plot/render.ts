/** Vega-Lite to SVG in Node (Vega's headless View, no browser), or to a page that renders it with vega-embed. */
import type { TopLevelSpec } from 'vega-lite';
import { invalidArgValue } from '@rmmjs/core/internal';
import { validateObject, validateString } from '../validate.js';

// The major versions this package renders with.
const VEGA = 6;
const VEGA_LITE = 6;
const VEGA_EMBED = 7;

/**
 * Renders a Vega-Lite specification to SVG in Node, with Vega's headless view (no browser). It draws
 * a JSON copy of `spec`; one that Vega-Lite or Vega cannot draw is `ERR_INVALID_ARG_VALUE`.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const copy = JSON.parse(specJson(spec)) as TopLevelSpec;
  // Loaded here: the other commands start without the charting libraries.
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const cannotDraw = (error: unknown) => notASpec('is not a Vega-Lite specification Vega can draw', error);
  let view;
  try {
    view = new vega.View(vega.parse(vegaLite.compile(copy).spec), { renderer: 'none' });
  } catch (error) {
    throw cannotDraw(error);
  }
  try {
    return await view.toSVG().catch((error: unknown) => Promise.reject(cannotDraw(error)));
  } finally {
    view.finalize();
  }
}

/** A wrong argument, with what Vega-Lite, Vega or JSON said about it as its cause. */
function notASpec(what: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return Object.assign(invalidArgValue('spec', `${what}: ${reason}`), { cause: error });
}

/**
 * The specification as JSON. What JSON cannot write (a bigint, a cycle: JSON's TypeError) is
 * `ERR_INVALID_ARG_VALUE`; what the object's own getters or `toJSON` throw comes through as it is.
 */
function specJson(spec: unknown): string {
  validateObject(spec, 'spec');
  let text: string | undefined;
  try {
    text = JSON.stringify(spec) as string | undefined;
  } catch (error) {
    if (Object.getPrototypeOf(error) !== TypeError.prototype) throw error;
    throw notASpec('cannot be written as JSON', error);
  }
  if (text === undefined) throw notASpec('cannot be written as JSON', 'its toJSON gives no value');
  return text;
}

/** An HTML page that draws `spec` with vega-embed (from a CDN, at the major versions this package uses). */
export function renderHtml(spec: TopLevelSpec, title: string): string {
  const text = specJson(spec);
  validateString(title, 'title');
  const script = (name: string, version: number) =>
    `<script src="https://cdn.jsdelivr.net/npm/${name}@${version}"></script>`;
  const json = text.replace(/</g, '\\u003c');
  const escaped = title.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escaped}</title>
${script('vega', VEGA)}
${script('vega-lite', VEGA_LITE)}
${script('vega-embed', VEGA_EMBED)}
</head>
<body>
<div id="plot"></div>
<script>vegaEmbed('#plot', ${json}, { actions: { export: true, source: false, compiled: false, editor: false } });</script>
</body>
</html>
`;
}
