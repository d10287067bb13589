/**
 * The published packages as their users get them: `.ci/build.mjs` into a work folder, `npm pack`
 * the built package, and install a tarball (with any other packages) into a fresh project.
 * `sharedPackages()` builds and packs once per test run for every suite that installs them (the
 * package, peer-matrix, browser client and install-docs tests).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

/** `execFile` as a promise. */
export const run = promisify(execFile);
/** The repository root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
/**
 * npm settings of every consumer project, as the environment variables npm reads
 * (`npm_config_<setting>`): a command a page documents runs exactly as written with them set.
 * Offline cache preferred, no audit or funding notes; never force (a peer conflict fails the install).
 */
export const npmEnv: Readonly<Record<string, string>> = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

/** A packed tarball and the files it ships. */
export interface Tarball {
  file: string;
  files: string[];
}

/** Builds the three packages into `<work>/build` (quietly). */
export async function buildPackages(work: string): Promise<void> {
  await run(process.execPath, [join(root, '.ci/build.mjs'), '--out', join(work, 'build'), '--quiet'], { cwd: root });
}

/** `npm pack` of one built package into `work`. */
export async function packPackage(work: string, name: 'client' | 'server' | 'cli'): Promise<Tarball> {
  const { stdout } = await run('npm', ['pack', join(work, 'build', name), '--json', '--pack-destination', work], {
    cwd: work,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  return { file: join(work, info.filename), files: info.files.map((f) => f.path) };
}

/** A fresh ESM project `<work>/<name>` with `files` written and `packages` (tarballs or specs) installed. */
export async function installProject(work: string, name: string, packages: string[], files: Record<string, string> = {}): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  await run('npm', ['install', ...packages], { cwd: dir, env: { ...process.env, ...npmEnv }, maxBuffer: 16 * 1024 * 1024 });
  return dir;
}

/** The three packages built (`buildDir`/client, `buildDir`/server, `buildDir`/cli) and packed, once per test run. */
export interface SharedPackages {
  buildDir: string;
  client: Tarball;
  server: Tarball;
  cli: Tarball;
}

let shared: Promise<SharedPackages> | undefined;

/**
 * The packages of this test run, built and packed in the folder of test/setup/packages.ts. The
 * suite that asks first (in any worker) builds, under a lock (an exclusive mkdir); the others
 * wait for its result, or for its failure, which they report too.
 */
export function sharedPackages(): Promise<SharedPackages> {
  shared ??= buildOnce(inject('packagesDir'));
  return shared;
}

async function buildOnce(dir: string): Promise<SharedPackages> {
  const done = join(dir, 'packed.json');
  const failed = join(dir, 'failed.txt');
  try {
    mkdirSync(join(dir, 'lock'));
  } catch {
    // Another suite builds: wait for it (a build takes 10-60 s on a loaded machine).
    for (let waited = 0; waited < 600_000; waited += 250) {
      if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as SharedPackages;
      if (existsSync(failed)) throw new Error(`building the packages failed in another suite: ${readFileSync(failed, 'utf8')}`);
      await sleep(250);
    }
    throw new Error(`the packages were not built within 10 minutes (${dir})`);
  }
  try {
    await buildPackages(dir);
    const [client, server, cli] = await Promise.all([packPackage(dir, 'client'), packPackage(dir, 'server'), packPackage(dir, 'cli')]);
    const packages: SharedPackages = { buildDir: join(dir, 'build'), client, server, cli };
    writeFileSync(`${done}.tmp`, JSON.stringify(packages));
    // Written whole, then renamed: a waiter never reads half a file.
    renameSync(`${done}.tmp`, done);
    return packages;
  } catch (error) {
    writeFileSync(failed, String((error as { stderr?: string }).stderr || error));
    throw error;
  }
}
