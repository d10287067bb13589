/**
 * The documentation a newcomer reads: the README stays a short router (at most 250 lines),
 * every relative link of the README, docs/ and the package READMEs resolves (the file, and the
 * heading an #anchor names), no page cites the source description by section or speaks of the
 * authors' machines, and docs/decisions.md is what `npm run docs:decisions` renders.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { currentDecisionsPage } from '../../tools/docs/write-decisions-page.js';
import { SOURCE_LABEL } from '../../tools/docs/decisions-markdown.js';
import { authorsMachineOrSourceCitation } from '../helpers/user-facing-text.js';
import { loadConfig } from '../../server/config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

const docsPages = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
/** Every page a user reads. */
const pages = [
  'README.md',
  'CHANGELOG.md',
  'BENCHMARKS.md',
  'bench/findings.md',
  'client/README.md',
  'cli/README.md',
  'server/README.md',
  ...readdirSync(join(root, 'examples'))
    .map((d) => `examples/${d}/README.md`)
    .filter((f) => existsSync(join(root, f))),
  ...docsPages,
];

/**
 * Pages other branches write; a link to one of them is accepted while the file does not exist
 * yet, and checked like any other (file and anchors) once it does.
 */
const PENDING_PAGES = new Set(['receiver-redis', 'webhook-delivery', 'local-webhooks', 'metrics', 'bounds', 'receiving-payloads'].map((p) => `docs/${p}.md`));

/** Markdown without fenced code blocks and inline code spans (links there are examples, not links). */
const prose = (markdown: string) => markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const text = (match[1] ?? '').replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative links of a page: `[text](target)` outside code, without external schemes. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? '').filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of `page`, or undefined; pending pages that do not exist yet are `pending`. */
function linkProblem(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file =
    path === ''
      ? page
      : relative(root, resolve(root, dirname(page), decodeURIComponent(path)))
          .split('\\')
          .join('/');
  if (!existsSync(join(root, file))) return PENDING_PAGES.has(file) ? 'pending' : `${page}: ${target} (no file ${file})`;
  if (anchor === undefined || !file.endsWith('.md')) return undefined;
  return anchorsOf(read(file)).has(anchor) ? undefined : `${page}: ${target} (no heading #${anchor} in ${file})`;
}

describe('the README', () => {
  it('is a short router: at most 250 lines, with the two set-up commands and a contents list', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    expect(readme).toMatch(/^## Contents$/m);
  });

  it('links a quick start per reader to its page', () => {
    const readme = read('README.md');
    for (const [reader, page] of [
      ['reviewing the spec', 'docs/spec-review.md'],
      ['frontend developers', 'docs/mock-sandbox-msw.md'],
      ['consumers', 'docs/client.md'],
      ['operators', 'docs/server.md'],
    ]) {
      const section = readme.slice(readme.indexOf(`## Quick start: ${reader}`));
      expect(section.slice(0, section.indexOf('\n## ', 4)), reader).toContain(`](${page})`);
    }
  });
});

describe('links', () => {
  it('the anchor rule matches GitHub for headings with code, punctuation and repeats', () => {
    expect([...anchorsOf('# A `b` c\n## Retries, and a not_paused that may mean "resumed"\n## x\n## x\n')]).toEqual([
      'a-b-c',
      'retries-and-a-not_paused-that-may-mean-resumed',
      'x',
      'x-1',
    ]);
  });

  it('every relative link of the README, docs/ and the package READMEs resolves, to its heading too', () => {
    const problems = pages.flatMap((page) => relativeLinks(read(page)).map((target) => linkProblem(page, target)));
    expect(problems.filter((p) => p !== undefined && p !== 'pending')).toEqual([]);
    // A broken link is seen as one.
    expect(linkProblem('README.md', 'docs/no-such-page.md')).toMatch(/no file/);
    expect(linkProblem('README.md', 'docs/client.md#no-such-heading')).toMatch(/no heading/);
  });

  it('the README links every page of docs/', () => {
    const readme = read('README.md');
    for (const page of docsPages) expect(readme, page).toContain(`](${page})`);
  });
});

describe('texts users read', () => {
  it('cite no section of the source description and speak of no machine of the authors', () => {
    const offenders = pages.flatMap((page) =>
      read(page)
        .split('\n')
        // The decision record keeps each decision's mapping to the source, for reviewers.
        .filter((line) => !(page === 'docs/decisions.md' && line.startsWith(`- **${SOURCE_LABEL}**`)))
        .filter((line) => authorsMachineOrSourceCitation(line))
        .map((line) => `${page}: ${line.slice(0, 100)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('docs/decisions.md is rendered from x-decisions (run `npm run docs:decisions`)', () => {
    expect(read('docs/decisions.md')).toBe(currentDecisionsPage());
  });
});

describe('URLs the pages show', () => {
  const { port: serverPort } = loadConfig({});
  const { port: sandboxPort } = loadConfig({}, { sandbox: true });
  /** Lines of every fenced block of the pages, with their page. */
  const codeLines = pages.flatMap((page) =>
    [...read(page).matchAll(/^(```|~~~)[^\n]*\n([\s\S]*?)^\1/gm)].flatMap((m) => (m[2] ?? '').split('\n').map((line) => ({ page, line }))),
  );

  it(`the sandbox's control API and sandbox clients name the sandbox's port (${sandboxPort}), not the server's (${serverPort})`, () => {
    const sandboxUrls = codeLines.filter(({ line }) => /\/_sandbox\/|createSandboxClient\(\{ *baseUrl/.test(line));
    expect(sandboxUrls.length).toBeGreaterThan(0);
    const wrong = sandboxUrls.filter(({ line }) => /127\.0\.0\.1:\d+|localhost:\d+/.test(line) && !line.includes(`:${sandboxPort}`));
    expect(wrong.map(({ page, line }) => `${page}: ${line.trim().slice(0, 120)}`)).toEqual([]);
  });
});

describe('counts the pages state', () => {
  it("docs/spec-review.md states how many findings .redocly.lint-ignore.yaml ignores, as Redocly's output counts them", () => {
    const ignored = Object.values(parse(read('.redocly.lint-ignore.yaml')) as Record<string, Record<string, string[]>>)
      .flatMap((rules) => Object.values(rules))
      .flat().length;
    expect(ignored).toBeGreaterThan(0);
    expect(read('docs/spec-review.md').replace(/\s+/g, ' ')).toContain(`ignores ${ignored} finding${ignored === 1 ? '' : 's'}`);
    expect(read('docs/spec-review.md').replace(/\s+/g, ' ')).toContain(`"${ignored} problem${ignored === 1 ? ' is' : 's are'} explicitly ignored"`);
  });
});
