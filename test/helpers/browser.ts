/**
 * Launches Debian's Chromium headless through playwright-core (never a downloaded browser:
 * the machine has no network but the registries). Flags per the machine notes: without
 * --disable-background-networking Chromium keeps dialling out and gets refused.
 */
import { chromium, type Browser } from 'playwright-core';

/** Path of the Chromium binary (Debian package `chromium`). */
export const chromiumPath = '/usr/bin/chromium';

/** Starts a fresh headless Chromium (playwright gives it a new empty profile); close it in afterAll. */
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
    ],
  });
}
