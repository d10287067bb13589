/**
 * Vitest global setup: a folder for the packages every suite installs (`sharedPackages()` in
 * test/helpers/package-tarball.ts), provided as `packagesDir`. The first suite that asks builds
 * and packs them there; the others wait and reuse the tarballs, so one run builds once. The
 * folder is removed after the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    packagesDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'sra-packages-'));
  project.provide('packagesDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
