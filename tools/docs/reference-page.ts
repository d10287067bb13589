/**
 * One OpenAPI document as a complete, self-contained HTML page: Redoc 2 rendered on the server
 * (every section's markup and its styles), Redoc's state, and Redoc's standalone script inlined
 * to hydrate that same markup in the browser. The page loads nothing from any other host.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Redoc 2's library is CommonJS, and its types need React's and styled-components' own:
// the few calls made here are typed below instead.
const require = createRequire(import.meta.url);

/** What the page uses of Redoc 2's library. */
interface RedocLibrary {
  createStore(spec: object, specUrl: string | undefined, options: Record<string, unknown>): Promise<{ toJS(): Promise<unknown> }>;
  Redoc: unknown;
}

/** styled-components' collector of the styles a server render uses. */
interface ServerStyleSheet {
  collectStyles(tree: unknown): unknown;
  getStyleTags(): string;
  seal(): void;
}

/** Redoc's options: the first declared response (200) open, the others open on a click. */
const REDOC_OPTIONS: Record<string, unknown> = { expandResponses: '200' };

/** Where the reference server serves the raw document, beside /docs: the page's download link. */
const SPEC_URL = '/openapi.yaml';

/** Redoc's attribution logo, which its sidebar loads from cdn.redoc.ly once the page runs, whatever the options. */
const OUTSIDE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** The same attribution as a text image inside the page: the reference loads nothing from outside. */
const LOCAL_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#0044D4">Redocly</text></svg>',
)}`;

/** The page of `document`; rejects when Redoc cannot render it. */
export async function renderReferencePage(document: { info?: { title?: string } }): Promise<string> {
  const { createStore, Redoc } = require('redoc') as RedocLibrary;
  const { createElement } = require('react') as { createElement(type: unknown, props: object): unknown };
  const { renderToString } = require('react-dom/server') as { renderToString(element: unknown): string };
  const { ServerStyleSheet } = require('styled-components') as { ServerStyleSheet: new () => ServerStyleSheet };
  const store = await createStore(document, SPEC_URL, REDOC_OPTIONS);
  const sheet = new ServerStyleSheet();
  try {
    const markup = renderToString(sheet.collectStyles(createElement(Redoc, { store })));
    const script = withLocalAttributionLogo(readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8'));
    return page(document.info?.title ?? 'API', sheet.getStyleTags(), markup, await store.toJS(), script);
  } finally {
    sheet.seal();
  }
}

/** The HTML around Redoc's markup: its styles in the head, its script and state after the markup. */
function page(title: string, styles: string, markup: string, state: unknown, script: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body { margin: 0; padding: 0; }</style>
${styles}
</head>
<body>
<div id="redoc">${markup}</div>
<script>${inScript(script)}</script>
<script>Redoc.hydrate(${stateLiteral(state)}, document.getElementById('redoc'));</script>
</body>
</html>
`;
}

/**
 * Redoc's script with its attribution logo replaced by `LOCAL_LOGO`. Redoc has no option for it;
 * a Redoc version that names the logo otherwise fails the build here, so the page never
 * silently reaches outside again.
 */
function withLocalAttributionLogo(script: string): string {
  if (!script.includes(OUTSIDE_LOGO)) throw new Error(`Redoc's script no longer names its logo at ${OUTSIDE_LOGO}: check what its sidebar loads`);
  return script.replaceAll(OUTSIDE_LOGO, LOCAL_LOGO);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Script code that cannot end its <script> element early (the CLI's own escape: `<\/` reads as `</`). */
function inScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1');
}

/** Redoc's state as a JavaScript literal: no `<` that the HTML parser could read, no line separators. */
function stateLiteral(state: unknown): string {
  return JSON.stringify(state)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
