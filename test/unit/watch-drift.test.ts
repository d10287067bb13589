/**
 * `watch` on the drift it used to miss or refuse: an answer that is none of the operation's
 * outcomes, a HAR entry that got no answer, a report that says what it saw when a rule saw
 * nothing of its own, and a HAR read within a documented bound.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headerList, type Exchange } from '../../cli/watch/exchange.js';
import { HarError, parseHar } from '../../cli/watch/har.js';
import { createWatcher, formatWatchSummary } from '../../cli/watch/watcher.js';

const T0 = Date.parse('2026-11-28T01:00:00.000Z');
const NOT_PAUSED = JSON.stringify({ success: false, error: 'not_paused', message: 'Session is not paused (not_paused).' });

function resume(at: number, status: number, body: string): Exchange {
  return {
    kind: 'api',
    method: 'POST',
    target: '/v1/sessions/sess_1/resume',
    startedAt: at,
    endedAt: at + 5,
    requestHeaders: headerList([['authorization', 'Bearer sk_test_secret_key']]),
    requestBody: '',
    status,
    responseHeaders: headerList([['content-type', 'application/json']]),
    responseBody: body,
  };
}

const drifted = (w: ReturnType<typeof createWatcher>) =>
  w
    .report()
    .filter((e) => e.grade === 'drift')
    .map((e) => e.rule);

describe('an answer outside the operation’s outcomes', () => {
  it('200 {"success":false} without the marker drifts, named by outcome only', () => {
    const w = createWatcher();
    const drifts = w.observe(resume(T0, 200, JSON.stringify({ success: false, message: 'Session is not paused' })));
    expect(drifts.map((d) => d.rule)).toEqual(['outcome']);
    expect(drifts[0]?.fault).toMatch(/^status 200 with success false/);
    expect(drifted(w)).toEqual(['outcome']);
  });

  it('200 {"success":true} and a 404 in the Error shape are outcomes: pass', () => {
    const w = createWatcher();
    w.observe(resume(T0, 200, JSON.stringify({ success: true, message: 'Session resumed.' })));
    w.observe(resume(T0 + 1, 404, JSON.stringify({ success: false, error: 'not_found', message: 'Session not found.' })));
    expect(drifted(w)).toEqual([]);
    expect(w.report().find((e) => e.rule === 'outcome')?.grade).toBe('pass');
  });
});

const harEntry = (status: number, time = 12) => ({
  startedDateTime: new Date(T0).toISOString(),
  time,
  request: { method: 'POST', url: 'http://127.0.0.1:9/v1/sessions/sess_1/resume', headers: [{ name: 'Authorization', value: 'Bearer sk_test_k' }] },
  response: { status, statusText: '', headers: [], content: { size: -1, mimeType: 'x-unknown' } },
});

describe('a HAR entry without an answer', () => {
  it('Playwright’s status -1 (time -1) is an unanswered request, reported as such, not a refused file', () => {
    const exchanges = parseHar(JSON.stringify({ log: { entries: [harEntry(-1, -1), harEntry(200)] } }));
    expect(exchanges.map((e) => e.status)).toEqual([undefined, 200]);
    const w = createWatcher();
    for (const exchange of exchanges) w.observe(exchange);
    expect(w.counts()).toMatchObject({ exchanges: 2, outside: 0, unanswered: 1 });
    expect(formatWatchSummary(w.report(), w.counts())).toMatch(/1 got no answer/);
  });
});

describe('what a rule that saw nothing of its own says', () => {
  it('only 409 not_paused answers: error-shape says what was seen, never that nothing was', () => {
    const w = createWatcher();
    for (let n = 0; n < 7; n++) w.observe(resume(T0 + n, 409, NOT_PAUSED));
    const entry = w.report().find((e) => e.rule === 'error-shape');
    expect(entry?.grade).toBe('n/o');
    expect(entry?.evidence).not.toMatch(/no answer on a path of the contract was seen/);
    expect(entry?.evidence).toContain('(seen: POST /v1/sessions/{session_id}/resume: 409 ×7)');
  });
});

describe('reading a HAR file within its bound', () => {
  const dir = mkdtempSync(join(tmpdir(), 'watch-har-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('streams a file entry by entry, and refuses one past the bound with the bound in the message', async () => {
    const { readHarFile } = await import('../../cli/watch/har-file.js');
    const file = join(dir, 'two.har');
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [harEntry(200), harEntry(-1)] } }));
    const read = await readHarFile(file);
    expect(read.map((e) => e.status)).toEqual([200, undefined]);
    await expect(readHarFile(file, { maxBytes: 100 })).rejects.toThrow(/larger than 100 bytes/);
    await expect(readHarFile(file, { maxEntries: 1 })).rejects.toThrow(/more than 1 entries/);
    writeFileSync(file, '{"log":{"entries":[{"startedDateTime": oops');
    await expect(readHarFile(file)).rejects.toBeInstanceOf(HarError);
    writeFileSync(file, '{"log":{}}');
    await expect(readHarFile(file)).rejects.toThrow(/\/log must have required property 'entries'/);
  });
});
