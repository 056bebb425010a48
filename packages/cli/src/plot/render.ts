/** Vega-Lite to SVG in Node (Vega's headless View, no browser), or to a page that renders it with vega-embed. */
import type { TopLevelSpec } from 'vega-lite';

// The major versions this package renders with.
const VEGA = 6;
const VEGA_LITE = 6;
const VEGA_EMBED = 7;

/** Renders a Vega-Lite specification to SVG in Node, with Vega's headless view (no browser). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded here: the other commands start without the charting libraries.
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** An HTML page that draws `spec` with vega-embed (from a CDN, at the major versions this package uses). */
export function renderHtml(spec: TopLevelSpec, title: string): string {
  const script = (name: string, version: number) =>
    `<script src="https://cdn.jsdelivr.net/npm/${name}@${version}"></script>`;
  const json = JSON.stringify(spec).replace(/</g, '\\u003c');
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
