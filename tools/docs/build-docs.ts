/**
 * Renders spec/openapi.yaml to one self-contained HTML page with Redoc 2's server rendering:
 * every section (the operation and its responses, the webhook and its payload, the behaviour
 * policies, the decision record) is written into the HTML itself, so the page is complete at
 * the load event, with JavaScript or without. Redoc's script, inlined, then hydrates the same
 * markup (menu, search, expanding a response) and asks nothing of any other host.
 *
 * Not Redocly `build-docs`: it renders with Redoc 3, which writes only the first section into
 * the HTML and renders each other one in the browser once it nears the viewport; no option
 * turns that off, so its page is not complete at the load event.
 *
 * Added to a copy in memory (the spec file stays the one source): the servers as the overview's
 * last paragraph, the behaviour policies and the decisions as description-only tags (Redoc's
 * `x-traitTag`) after the document's own tags.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { specPath as defaultSpecPath } from '@session-resume-api/runtime/contract';
import { renderDecisionRecordSection, type Decision } from './decisions-markdown.js';
import { renderPoliciesMarkdown, type PolicyDocument } from './policies-markdown.js';
import { renderReferencePage } from './reference-page.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Default output of `npm run docs`: server/dist/docs/index.html, where the server's docs router looks. */
export const defaultDocsHtmlPath: string = join(root, 'server/dist/docs/index.html');

/** Options of `buildDocs`. */
export interface BuildDocsOptions {
  /** OpenAPI document to render (default: spec/openapi.yaml). */
  specPath?: string;
  /** HTML file to write (default: server/dist/docs/index.html). */
  outputPath?: string;
}

/** Writes the HTML reference; resolves with its path. Rejects when Redoc cannot render the document. */
export async function buildDocs(options: BuildDocsOptions = {}): Promise<string> {
  const source = options.specPath ?? defaultSpecPath;
  const output = options.outputPath ?? defaultDocsHtmlPath;
  const document = parse(await readFile(source, 'utf8')) as PolicyDocument & {
    info: { title?: string; description?: string };
    servers?: Server[];
    tags?: Record<string, unknown>[];
    'x-decisions'?: Decision[];
  };
  document.info.description = [document.info.description ?? '', serversMarkdown(document.servers ?? [])].join('\n');
  document.servers = document.servers?.map(withDefaultValues);
  document.tags = [...(document.tags ?? []), policiesTag(document), decisionRecordTag(document['x-decisions'] ?? [])];
  const html = await renderReferencePage(document);
  await mkdir(dirname(output), { recursive: true });
  await writeFile(output, html);
  return output;
}

/** One entry of the document's `servers`. */
interface Server {
  url: string;
  description?: string;
  variables?: Record<string, { default: string }>;
}

/**
 * The server with its URL's variables replaced by their defaults. Redoc 2 reads a URL that is not
 * absolute, such as `{base_url}`, as relative to the page's address in the browser and to nothing
 * when it renders on the server: the two renders would differ and the page would be re-rendered
 * from scratch once its script runs. The overview lists the URLs as the document writes them.
 */
function withDefaultValues(server: Server): Server {
  const url = server.url.replace(/\{([^}]+)\}/g, (variable, name: string) => server.variables?.[name]?.default ?? variable);
  return { ...server, url };
}

/**
 * The servers as the overview's last paragraph: Redoc 2 lists them only inside each operation's
 * endpoint box, shown on a click.
 */
function serversMarkdown(servers: readonly Server[]): string {
  if (!servers.length) return '';
  return ['**Servers.**', '', ...servers.map(({ url, description }) => `- \`${url}\`${description ? `: ${description}` : ''}`), ''].join('\n');
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
