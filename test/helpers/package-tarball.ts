/**
 * The published packages as their users get them: `.ci/build.mjs` into a work folder, `npm pack`
 * the built package, and install a tarball (with any other packages) into a fresh project.
 * Shared by the package test and the peer-matrix test.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** `execFile` as a promise. */
export const run = promisify(execFile);
/** The repository root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
/** npm install flags of every consumer project (never --force: a peer conflict fails the install). */
export const npmOptions = ['--no-audit', '--no-fund', '--prefer-offline'];

/** A packed tarball and the files it ships. */
export interface Tarball {
  file: string;
  files: string[];
}

/** Builds both packages into `<work>/build` (quietly). */
export async function buildPackages(work: string): Promise<void> {
  await run(process.execPath, [join(root, '.ci/build.mjs'), '--out', join(work, 'build'), '--quiet'], { cwd: root });
}

/** `npm pack` of one built package into `work`. */
export async function packPackage(work: string, name: 'client' | 'server'): Promise<Tarball> {
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
  await run('npm', ['install', ...packages, ...npmOptions], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  return dir;
}
