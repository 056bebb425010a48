/** Vega-Lite to SVG in Node (Vega's headless View, no browser), or to a page that renders it with vega-embed. */
import type { TopLevelSpec } from 'vega-lite';
import { invalidArgValue } from '@rmmjs/core/internal';
import { validateObject, validateString } from '../validate.js';

// The major versions this package renders with.
const VEGA = 6;
const VEGA_LITE = 6;
const VEGA_EMBED = 7;

/** Renders a Vega-Lite specification to SVG in Node, with Vega's headless view (no browser). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  validateObject(spec, 'spec');
  // Loaded here: the other commands start without the charting libraries.
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  let view;
  try {
    view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  } catch (error) {
    throw notASpec('is not a Vega-Lite specification Vega can draw', error);
  }
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** What Vega-Lite, Vega or JSON said about a specification it cannot take, as rmmjs's error for a wrong argument. */
function notASpec(what: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return Object.assign(invalidArgValue('spec', `${what}: ${reason}`), { cause: error });
}

/** An HTML page that draws `spec` with vega-embed (from a CDN, at the major versions this package uses). */
export function renderHtml(spec: TopLevelSpec, title: string): string {
  validateObject(spec, 'spec');
  validateString(title, 'title');
  const script = (name: string, version: number) =>
    `<script src="https://cdn.jsdelivr.net/npm/${name}@${version}"></script>`;
  let text: string | undefined;
  try {
    text = JSON.stringify(spec) as string | undefined;
  } catch (error) {
    throw notASpec('cannot be written as JSON', error);
  }
  if (typeof text !== 'string') throw notASpec('cannot be written as JSON', 'its toJSON gives no value');
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
