/**
 * Renders spec/openapi.yaml to one self-contained HTML page with Redocly `build-docs`
 * (Redoc scripts inlined, so the page works offline). The operation and the webhook come
 * first; the decisions follow as a last section, rendered into a temporary copy as a
 * description-only tag (Redoc's `x-traitTag`) after the document's own tags. The spec file
 * stays the one source.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { specPath as defaultSpecPath } from '@session-resume-api/runtime/contract';
import { renderDecisionRecordSection, type Decision } from './decisions-markdown.js';
import { renderPoliciesMarkdown, type PolicyDocument } from './policies-markdown.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const redoclyBin = join(root, 'node_modules/.bin/redocly');

/** Default output of `npm run docs`: server/dist/docs/index.html, where the server's docs router looks. */
export const defaultDocsHtmlPath: string = join(root, 'server/dist/docs/index.html');

/** Options of `buildDocs`. */
export interface BuildDocsOptions {
  /** OpenAPI document to render (default: spec/openapi.yaml). */
  specPath?: string;
  /** HTML file to write (default: server/dist/docs/index.html). */
  outputPath?: string;
}

/** Writes the HTML reference; resolves with its path. Rejects with Redocly's output on failure. */
export async function buildDocs(options: BuildDocsOptions = {}): Promise<string> {
  const source = options.specPath ?? defaultSpecPath;
  const output = options.outputPath ?? defaultDocsHtmlPath;
  const document = parse(await readFile(source, 'utf8')) as PolicyDocument & {
    info: { title?: string };
    tags?: Record<string, unknown>[];
    'x-decisions'?: Decision[];
  };
  document.tags = [...(document.tags ?? []), policiesTag(document), decisionRecordTag(document['x-decisions'] ?? [])];
  const dir = await mkdtemp(join(tmpdir(), 'session-resume-docs-'));
  try {
    const copy = join(dir, 'openapi.yaml');
    await writeFile(copy, stringify(document));
    await mkdir(dirname(output), { recursive: true });
    // --inlineBundle: Redoc's scripts go into the page instead of loading from the Redocly
    // CDN; --template: Redocly's default page plus a style for the prerendered search box.
    // REDOCLY_TELEMETRY=off: neither the CLI nor the page (its disableTelemetry) reports usage.
    const args = ['build-docs', copy, '-o', output, '--inlineBundle', '--template', PAGE_TEMPLATE, '--title', document.info.title ?? 'API'];
    args.push('--openapi.routingBasePath=/docs');
    await run(redoclyBin, args, { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off' } });
    await writeFile(output, withLocalAttributionLogo(await readFile(output, 'utf8')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return output;
}

/** The page around Redoc's output (Handlebars, build-docs' --template). */
const PAGE_TEMPLATE = fileURLToPath(new URL('page-template.hbs', import.meta.url));

/** Redoc's attribution logo, which its footer loads from cdn.redoc.ly whatever the options. */
const OUTSIDE_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
/** The same attribution as a text image inside the page: the reference loads nothing from outside. */
const LOCAL_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#0044D4">Redocly</text></svg>',
)}`;

/**
 * The page with Redoc's attribution logo replaced by `LOCAL_LOGO`. Redoc 3 has no option for
 * it; a Redoc version that names the logo otherwise fails the build here, so the page never
 * silently reaches outside again.
 */
export function withLocalAttributionLogo(html: string): string {
  const missing = OUTSIDE_LOGOS.filter((url) => !html.includes(url));
  if (missing.length) throw new Error(`the built reference no longer names Redoc's logo at ${missing.join(', ')}: check what its footer loads`);
  return OUTSIDE_LOGOS.reduce((page, url) => page.replaceAll(url, LOCAL_LOGO), html);
}

/** The behaviour policies as a section before the decisions: a tag with no operations, only a description. */
function policiesTag(document: PolicyDocument): Record<string, unknown> {
  // Redoc names the section by the tag: the tables come without their own heading.
  const tables = renderPoliciesMarkdown(document).split('\n').slice(2).join('\n');
  return { name: 'behaviour-policies', 'x-displayName': 'Behaviour policies', 'x-traitTag': true, description: tables };
}

/** The decisions as the reference's last section: a tag with no operations, only a description. */
function decisionRecordTag(decisions: readonly Decision[]): Record<string, unknown> {
  return {
    name: 'decision-record',
    'x-displayName': 'Decision record',
    'x-traitTag': true,
    description: renderDecisionRecordSection(decisions),
  };
}
