/**
 * Launches Debian's Chromium headless through playwright-core (never a downloaded browser:
 * the machine has no network but the registries). Flags per the machine notes: without
 * --disable-background-networking Chromium keeps dialling out and gets refused.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Path of the Chromium binary (Debian package `chromium`). */
export const chromiumPath = '/usr/bin/chromium';

/** Starts a fresh headless Chromium with an empty profile; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${mkdtempSync(join(tmpdir(), 'chromium-'))}`,
    ],
  });
}
