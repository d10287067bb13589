/** Sandbox building blocks without sockets: key worlds and their bound, Prefer parsing, the loopback http URL rule. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choosePrefer } from '../../server/sandbox/prefer-forcing.js';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { createSandboxWorlds } from '../../server/sandbox/sandbox-worlds.js';
import { DEMO_SESSIONS } from '../../server/sessions/session-seeds.js';
import { dedupeKey } from '@session-resume-api/runtime/event-identity';
import { listScenarios } from '@session-resume-api/runtime/scenarios';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';

const event = (id: string) => ({ event: 'session.resumed', session: { id }, timestamp: '2026-11-21T16:00:00.000Z' });
const message = (id: string) => ({ id: `msg_${id}`, payload: event(id) });

describe('createSandboxWorlds', () => {
  it('accepts exactly the tokens that start with sandbox_ and have more after it, with a stable id per token', () => {
    const worlds = createSandboxWorlds({ seeds: DEMO_SESSIONS });
    fc.assert(
      fc.property(fc.string(), (token) => {
        const id = worlds.checkKey(token);
        expect(id !== undefined).toBe(token.startsWith('sandbox_') && token.length > 'sandbox_'.length);
        if (id) expect(worlds.checkKey(token)).toBe(id);
      }),
    );
    expect(worlds.checkKey('sandbox_a')).not.toBe(worlds.checkKey('sandbox_b'));
  });

  it('gives a key the same id once its remembered id is forgotten, and for keys too long to remember', () => {
    const worlds = createSandboxWorlds({ seeds: DEMO_SESSIONS, maxWorlds: 2 });
    const long = `sandbox_${'k'.repeat(300)}`;
    const first = worlds.checkKey('sandbox_first');
    const longId = worlds.checkKey(long);
    for (const n of [1, 2, 3]) worlds.checkKey(`sandbox_other_${n}`);
    expect(worlds.checkKey('sandbox_first')).toBe(first);
    expect(worlds.checkKey(long)).toBe(longId);
    expect(longId).not.toBe(first);
  });

  it('seeds each world on first use and keeps worlds apart', async () => {
    const worlds = createSandboxWorlds({ seeds: DEMO_SESSIONS });
    const a = worlds.world('a');
    expect(await a.resume('sess_paused_1')).toMatchObject({ kind: 'resumed' });
    expect(await a.resume('sess_paused_1')).toEqual({ kind: 'not_paused', status: 'running' });
    expect(await worlds.world('b').resume('sess_paused_1')).toMatchObject({ kind: 'resumed' });
    expect(await worlds.world('a').get('sess_paused_1')).toMatchObject({ status: 'running' });
  });

  it('keeps at most maxWorlds, dropping the least recently used and ending its streams', async () => {
    const worlds = createSandboxWorlds({ seeds: DEMO_SESSIONS, maxWorlds: 2 });
    const a = worlds.world('a');
    await a.resume('sess_paused_1');
    let dropped = 0;
    a.onDrop(() => dropped++);
    worlds.world('b');
    worlds.world('a'); // a is now the most recent
    worlds.world('c'); // drops b
    expect(worlds.size()).toBe(2);
    expect(dropped).toBe(0);
    expect(await worlds.world('a').get('sess_paused_1')).toMatchObject({ status: 'running' });
    worlds.world('b'); // drops c; a is now the least recently used
    worlds.world('d');
    expect(dropped).toBe(1);
    expect(worlds.size()).toBe(2);
    // A dropped key starts over from the seed set.
    expect(await worlds.world('a').get('sess_paused_1')).toMatchObject({ status: 'paused' });
  });

  it('numbers events from 1, keeps the newest maxEvents, and reset clears them', () => {
    const world = createSandboxWorlds({ seeds: DEMO_SESSIONS, maxEvents: 3 }).world('w');
    const seen: number[] = [];
    world.subscribe((e) => seen.push(e.sequence));
    for (let i = 1; i <= 5; i++) world.record(message(`s${i}`));
    expect(world.events().map((e) => e.sequence)).toEqual([3, 4, 5]);
    expect(world.events(4).map((e) => e.payload.session.id)).toEqual(['s5']);
    expect(world.events()[0]?.dedupeKey).toBe(dedupeKey(event('s3')));
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    world.set('extra', 'paused');
    world.reset();
    expect(world.events()).toEqual([]);
    expect(world.list().sessions.map((s) => s.id)).toEqual(DEMO_SESSIONS.map((s) => s.id).sort());
    expect(world.record(message('again')).sequence).toBe(1);
  });

  it('refuses a bound that cannot work', () => {
    expect(() => createSandboxWorlds({ seeds: [], maxWorlds: 0 })).toThrow(OptionsError);
    expect(() => createSandboxWorlds({ seeds: [], maxEvents: 1.5 })).toThrow(/maxEvents/);
  });
});

describe('choosePrefer', () => {
  const scenarios = listScenarios();

  it('picks like Prism: code= alone takes the first example of the status, example= names one', () => {
    expect(choosePrefer('code=429', scenarios)).toMatchObject({ kind: 'forced', scenario: { example: 'rateLimited' } });
    expect(choosePrefer('code=401', scenarios)).toMatchObject({ kind: 'forced', scenario: { example: 'missingToken' } });
    expect(choosePrefer('code=401, example=invalidToken', scenarios)).toMatchObject({ kind: 'forced', scenario: { example: 'invalidToken' } });
    expect(choosePrefer('example=notFound', scenarios)).toMatchObject({ kind: 'forced', scenario: { status: 404 } });
    expect(choosePrefer('Code=409;Example="notPaused"', scenarios)).toMatchObject({ kind: 'forced', scenario: { example: 'notPaused' } });
    expect(choosePrefer('code=404, example=rateLimited', scenarios)).toMatchObject({ kind: 'unknown' });
    expect(choosePrefer(undefined, scenarios)).toEqual({ kind: 'none' });
    expect(choosePrefer('respond-async, wait=5', scenarios)).toEqual({ kind: 'none' });
  });

  it('never throws and only ever forces a named example, whatever the header says', () => {
    fc.assert(
      fc.property(fc.string(), (prefer) => {
        const choice = choosePrefer(prefer, scenarios);
        if (choice.kind === 'forced') expect(scenarios).toContain(choice.scenario);
      }),
    );
  });
});

describe('validateWebhookUrl with allowLoopbackHttp (sandbox mode only)', () => {
  it('accepts http:// on localhost and loopback addresses only', () => {
    for (const url of ['http://localhost:8080/hook', 'http://127.0.0.1:9/x', 'http://[::1]:9/x', 'http://app.localhost/x']) {
      expect(validateWebhookUrl(url, { allowLoopbackHttp: true }).ok, url).toBe(true);
      expect(validateWebhookUrl(url).ok, url).toBe(false);
    }
    for (const url of ['http://example.com/x', 'http://10.0.0.1/x', 'http://169.254.169.254/x', 'http://user:pw@localhost/x', 'http:localhost/x']) {
      expect(validateWebhookUrl(url, { allowLoopbackHttp: true }).ok, url).toBe(false);
    }
  });

  it('never lets plain http through to a host that is not loopback', () => {
    fc.assert(
      // Hosts of every form (names, IPv4 in all notations, IPv6, ports): only the authority
      // matters here, and fc.webUrl's generated paths made this test take seconds.
      fc.property(
        fc.webAuthority({ withIPv4: true, withIPv4Extended: true, withIPv6: true, withPort: true }).map((authority) => `http://${authority}/hooks`),
        (url) => {
          const check = validateWebhookUrl(url, { allowLoopbackHttp: true });
          if (check.ok)
            expect(
              check.url.hostname === 'localhost' || check.url.hostname.endsWith('.localhost') || /^(127\.|\[::1\]|0\.0\.0\.0)/.test(check.url.hostname),
            ).toBe(true);
        },
      ),
    );
  });
});

describe('sandbox world limits (x-decisions: sandbox-session-limit)', () => {
  const seeds = [{ id: 'seed_1', status: 'paused' }];

  it('holds at most maxSessions, seeds included; setting an existing session still works', () => {
    const worlds = createSandboxWorlds({ seeds, maxSessions: 3 });
    const world = worlds.world(worlds.checkKey('sandbox_limits')!);
    expect(world.set('a', 'paused').kind).toBe('set');
    expect(world.set('b', 'paused').kind).toBe('set');
    expect(world.set('c', 'paused')).toEqual({ kind: 'full', limit: 3 });
    expect(world.set('a', 'running')).toMatchObject({ kind: 'set', session: { id: 'a', status: 'running' } });
    world.reset();
    expect(world.set('c', 'paused').kind).toBe('set');
  });

  it('refuses a seed set larger than a world holds', () => {
    expect(() => createSandboxWorlds({ seeds: [...seeds, { id: 'x', status: 'paused' }], maxSessions: 1 })).toThrow(OptionsError);
  });

  it('property: the pages, followed by next, list every session once, sorted, at most limit each', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 60 }), fc.integer({ min: 1, max: 25 }), (ids, limit) => {
        const worlds = createSandboxWorlds({ seeds: [], maxSessions: 100 });
        const world = worlds.world(worlds.checkKey('sandbox_pages')!);
        for (const id of ids) world.set(id, 'paused');
        const seen: string[] = [];
        let after: string | undefined;
        do {
          const page = world.list({ limit, ...(after === undefined ? {} : { after }) });
          expect(page.sessions.length).toBeLessThanOrEqual(limit);
          seen.push(...page.sessions.map((s) => s.id));
          after = page.next;
        } while (after !== undefined);
        expect(seen).toEqual([...ids].sort());
      }),
      { numRuns: 100 },
    );
  });
});
