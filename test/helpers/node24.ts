/**
 * Node 24 for the suites that run something under it (the packed packages, wrangler): the
 * `node@24` npm package (about 190 MB), installed once into .tmp/node24, kept between runs
 * (gitignored), after a notice on stderr. Suites that ask at the same time in different workers
 * each install into a folder of their own and move it into place: the first move wins, the
 * others drop theirs, so no suite ever runs a half-installed Node.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { npmEnv, root, run } from './package-tarball.js';

const dir = join(root, '.tmp/node24');
/** Where the Node 24 binary is once installed. */
export const node24Path = join(dir, 'node_modules/node/bin/node');

let installing: Promise<string> | undefined;

/** The path of the Node 24 binary, installed first if it is not there yet. */
export function node24(): Promise<string> {
  installing ??= existsSync(node24Path) ? Promise.resolve(node24Path) : install();
  return installing;
}

async function install(): Promise<string> {
  process.stderr.write('downloading Node 24 once (the node@24 npm package, about 190 MB, into .tmp/node24).\n');
  const own = `${dir}.${process.pid}`;
  rmSync(own, { recursive: true, force: true });
  mkdirSync(own, { recursive: true });
  writeFileSync(join(own, 'package.json'), '{"private":true}\n');
  await run('npm', ['install', 'node@24'], { cwd: own, env: { ...process.env, ...npmEnv }, maxBuffer: 16 * 1024 * 1024 });
  // A folder without the binary is what an interrupted install left: replaced.
  if (existsSync(dir) && !existsSync(node24Path)) rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(own, dir);
  } catch (error) {
    // Another suite moved its install into place first: use that one.
    rmSync(own, { recursive: true, force: true });
    if (!existsSync(node24Path)) throw new Error('Node 24 is not in .tmp/node24 after installing it', { cause: error });
  }
  return node24Path;
}
