/**
 * Entry point of `npm run docs:decisions`: writes docs/decisions.md from the behaviour policies
 * and the `x-decisions` of spec/openapi.yaml. With `--check` it writes nothing and exits 1 when the page is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { specPath } from '@session-resume-api/runtime/contract';
import { renderDecisionsPage, type Decision } from './decisions-markdown.js';
import type { PolicyDocument } from './policies-markdown.js';

/** Where the generated decisions page lives. */
export const decisionsPagePath: string = fileURLToPath(new URL('../../docs/decisions.md', import.meta.url));

/** The page as the spec renders it now. */
export function currentDecisionsPage(): string {
  const document = parse(readFileSync(specPath, 'utf8')) as PolicyDocument & { 'x-decisions'?: Decision[] };
  return renderDecisionsPage(document['x-decisions'] ?? [], document);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const page = currentDecisionsPage();
  if (process.argv.includes('--check')) {
    const upToDate = readFileSync(decisionsPagePath, 'utf8') === page;
    if (!upToDate) console.error('docs/decisions.md is out of date with spec/openapi.yaml: run npm run docs:decisions');
    process.exitCode = upToDate ? 0 : 1;
  } else {
    writeFileSync(decisionsPagePath, page);
    console.log(`wrote ${decisionsPagePath}`);
  }
}
