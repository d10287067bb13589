/**
 * The packed package bundles for a web platform with nothing else installed: esbuild for a
 * `neutral` and a `browser` platform, and with wrangler's settings for Workers, each from a
 * fresh project holding only the tarball (no optional peer, nothing marked external). The
 * bundles import no Node built-in and name no optional peer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, PLATFORMS, receiverProject, type ReceiverProject } from './runtime-kit.js';

const ENTRY = `export { createMemoryEventStore, createWebhookReceiver, createSignatureVerifier } from 'session-resume-api/webhooks';\n`;

describe('session-resume-api/webhooks bundled for the web', () => {
  let project: ReceiverProject;
  beforeAll(async () => {
    project = await receiverProject('web-bundle', { 'entry.js': ENTRY });
  }, 240_000);
  afterAll(() => project?.remove());

  it.each(Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[])('builds for %s with no Node built-in and no optional peer', async (platform) => {
    const code = await bundle(project.dir, 'entry.js', platform);
    expect(code).toContain('createWebhookReceiver');
    expect(code).not.toMatch(/(?:from|import\(?|require\()\s*["'](?:node:|prom-client|ioredis|bullmq)/);
  });
});
