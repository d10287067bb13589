/**
 * `watch --from` on a HAR larger than Node's longest string (about 512 MiB): read entry by entry,
 * graded, never refused with ERR_STRING_TOO_LONG. Slow tier: it writes about 540 MB to a
 * temporary file (removed after).
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'watch-big-har-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a HAR of `count` page requests (100 kB each) and one resume answered 200 with success false. */
async function writeHar(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  const body = 'x'.repeat(100_000);
  const at = (i: number) => new Date(Date.UTC(2026, 10, 28, 1, 0, 0) + i).toISOString();
  const page = (i: number) => ({
    startedDateTime: at(i),
    time: 3,
    request: { method: 'GET', url: `http://127.0.0.1:9/static/app${i}.js`, headers: [] },
    response: { status: 200, headers: [], content: { text: body } },
  });
  const resume = {
    startedDateTime: at(count),
    time: 4,
    request: { method: 'POST', url: 'http://127.0.0.1:9/v1/sessions/sess_1/resume', headers: [{ name: 'Authorization', value: 'Bearer sk_test_k' }] },
    response: {
      status: 200,
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      content: { text: '{"success":false,"message":"Session is not paused"}' },
    },
  };
  out.write('{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[');
  for (let i = 0; i < count; i++) if (!out.write(`${JSON.stringify(page(i))},`)) await once(out, 'drain');
  out.end(`${JSON.stringify(resume)}]}}`);
  await once(out, 'finish');
}

it('a HAR over the string limit is read and graded', { timeout: 300_000 }, async () => {
  const file = join(dir, 'big.har');
  await writeHar(file, Math.ceil((constants.MAX_STRING_LENGTH * 1.05) / 100_150));
  expect(statSync(file).size).toBeGreaterThan(constants.MAX_STRING_LENGTH);
  const run = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', 'cli/main.ts', 'watch', '--from', file], { cwd: root, encoding: 'utf8' });
  expect(run.stderr).not.toMatch(/ERR_STRING_TOO_LONG/);
  expect(run.stdout).toMatch(/^DRIFT outcome +1 of 1 drifted: POST \/v1\/sessions\/sess_1\/resume 200/m);
  expect(run.status).toBe(1);
});
