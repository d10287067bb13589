/** The sandbox seeds every world from SESSIONS_FILE when it is given, and reset returns to it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxClient, newSandboxKey } from '../../../client/sandbox/index.js';
import { startSandboxProcess, type SandboxProcess } from '../../helpers/sandbox-process.js';

let dir: string;
let sandbox: SandboxProcess;
const seeds = [
  { id: 'order_42', status: 'paused' },
  { id: 'order_43', status: 'cancelled' },
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-seeds-'));
  writeFileSync(join(dir, 'sessions.json'), JSON.stringify(seeds));
  sandbox = await startSandboxProcess({ SESSIONS_FILE: join(dir, 'sessions.json') });
}, 40_000);
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('sandbox seeded from SESSIONS_FILE', () => {
  it("gives each new world the file's sessions, names a paused one in the banner, and resets to them", async () => {
    expect(sandbox.output()).toContain('/v1/sessions/order_42/resume');
    const client = createSandboxClient({ baseUrl: sandbox.url, apiKey: newSandboxKey() });
    expect((await client.sessions()).map(({ id, status }) => ({ id, status }))).toEqual(seeds);
    await client.setSession('order_43', 'paused');
    await client.setSession('extra', 'paused');
    expect((await client.reset()).map(({ id, status }) => ({ id, status }))).toEqual(seeds);
  });
});
