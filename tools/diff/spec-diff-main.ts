/**
 * Entry point of `npm run spec:diff -- <git-ref> [--format text|markdown]`: compares
 * spec/openapi.yaml at that ref with the working copy and exits 1 on a breaking change (of a wire
 * shape, or of a behaviour policy for clients or receivers: behaviour-changes.ts), unless
 * info.version got a new major version (x-decisions: versioning). Exit 0 when the file does not
 * exist at the ref, or the ref is the missing parent of a first commit (nothing to break); exit 2
 * on a usage error, including a ref that does not exist. `--format markdown` prints every change
 * (breaking first) and the decisions changed, ready to paste into a pull request; the exit status
 * is the same.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { listChanges, renderChangelogMarkdown } from './changelog.js';
import { describeBehaviourChange } from './behaviour-changes.js';
import { compareSpecs, isMajorBump, type SpecChange } from './compare-specs.js';

const SPEC = 'spec/openapi.yaml';
const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const succeeds = (...args: string[]): boolean => {
  try {
    git(...args);
    return true;
  } catch {
    return false;
  }
};

/**
 * Whether `ref` is `<base>~N` or `<base>^` (or a chain of them) of an existing commit that
 * has fewer than N ancestors: the parent a first commit does not have.
 */
function isBeyondFirstCommit(text: string): boolean {
  const match = /^(.+?)((?:~\d*|\^1?)+)$/.exec(text);
  if (!match?.[1] || !match[2] || !succeeds('rev-parse', '--verify', '--quiet', `${match[1]}^{commit}`)) return false;
  const steps = [...match[2].matchAll(/~(\d*)|\^/g)].reduce((n, m) => n + (m[0] === '^' ? 1 : Number(m[1] || 1)), 0);
  const depth = Number(git('rev-list', '--count', '--first-parent', `${match[1]}^{commit}`).trim());
  return steps >= depth;
}

const USAGE = 'Usage: npm run spec:diff -- <git-ref> [--format text|markdown]   (e.g. HEAD~1, main)';
let args: ReturnType<typeof parseCli>;
function parseCli() {
  return parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { format: { type: 'string', default: 'text' } } });
}
try {
  args = parseCli();
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
const ref = args.positionals[0];
const format = args.values.format;
if (!ref || args.positionals.length > 1 || (format !== 'text' && format !== 'markdown')) {
  console.error(USAGE);
  process.exit(2);
}
if (!succeeds('rev-parse', '--verify', '--quiet', `${ref}^{commit}`)) {
  // Only an ancestor that cannot exist passes: HEAD~1 of a first commit (or of a shallow
  // clone's only commit). Any other unknown ref is a mistake, not "nothing to compare".
  if (isBeyondFirstCommit(ref)) {
    console.log(`spec:diff: no commit ${ref} (no parent before it); nothing to compare.`);
    process.exit(0);
  }
  console.error(`spec:diff: ${ref} is not a commit of this repository: give a branch, tag or commit (e.g. HEAD~1, main).`);
  process.exit(2);
}
if (!succeeds('cat-file', '-e', `${ref}:${SPEC}`)) {
  console.log(`spec:diff: ${SPEC} does not exist at ${ref}; nothing to compare.`);
  process.exit(0);
}
const before = parse(git('show', `${ref}:${SPEC}`)) as { info?: { version?: string } };
const after = parse(readFileSync(join(git('rev-parse', '--show-toplevel').trim(), SPEC), 'utf8')) as {
  info?: { version?: string };
};
if (format === 'markdown') {
  const log = listChanges(before, after);
  process.stdout.write(renderChangelogMarkdown(log, ref));
  const breaks = log.entries.some((e) => e.kind === 'breaking') || log.behaviour.some((c) => c.kind === 'breaking');
  process.exit(breaks && !isMajorBump(log.versions.before, log.versions.after) ? 1 : 0);
}
const { breaking, nonBreaking, unclassified, behaviour } = compareSpecs(before, after);
const behaviourBreaks = behaviour.filter((c) => c.kind === 'breaking');
const versions = `${before.info?.version ?? '?'} → ${after.info?.version ?? '?'}`;
const list = (title: string, changes: SpecChange[]) => {
  if (!changes.length) return;
  console.log(`\n${title} (${changes.length}):`);
  for (const c of changes) console.log(`  - ${c.description}\n      at ${c.path}`);
};
console.log(`spec:diff ${ref} → working copy, info.version ${versions}`);
list('Breaking changes', breaking);
list('Non-breaking changes', nonBreaking);
list('Unclassified changes (not checked)', unclassified);
if (behaviour.length) {
  console.log(`\nBehaviour changes, x-retry-policy and x-delivery-policy (${behaviour.length}):`);
  for (const c of behaviour) console.log(`  - ${describeBehaviourChange(c)}`);
}
if (!breaking.length && !behaviourBreaks.length) {
  console.log('\nNo breaking change.');
} else if (isMajorBump(before.info?.version ?? '', after.info?.version ?? '')) {
  console.log(`\nBreaking changes, allowed: info.version has a new major version (${versions}).`);
} else {
  console.log(`\nBreaking changes without a new major info.version (${versions}): bump the major version or undo them.`);
  process.exitCode = 1;
}
