/** seedStore's skip rule (marker + sample session) and seed sources' versions, on the memory store. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';
import { seedStore, type SeedMarker } from '../../../server/sessions/seed-on-start.js';
import { DEMO_SESSIONS, openSeedSource, type SeedSource } from '../../../server/sessions/session-seeds.js';

function memoryMarker(): SeedMarker & { value?: string } {
  const marker: SeedMarker & { value?: string } = {
    read: async () => marker.value,
    write: async (value) => void (marker.value = value),
  };
  return marker;
}

function countingSource(source: SeedSource): SeedSource & { loads: number } {
  const counted = { ...source, loads: 0, load: async () => (counted.loads++, source.load()) };
  return counted;
}

describe('seedStore', () => {
  it('seeds, then skips without even parsing while the marker matches and its sample session exists', async () => {
    const store = createMemorySessionStore();
    const marker = memoryMarker();
    const source = countingSource(await openSeedSource());
    expect(await seedStore({ store, source, marker })).toEqual({ skipped: false, created: DEMO_SESSIONS.length, kept: 0 });
    expect(await seedStore({ store, source, marker })).toEqual({ skipped: true, created: 0, kept: 0 });
    expect(source.loads).toBe(1);
    expect(await seedStore({ store, source, marker, force: true })).toEqual({ skipped: false, created: 0, kept: DEMO_SESSIONS.length });
  });

  it('seeds again when the marker is for other content, or its sample session is gone (data lost, keys renamed)', async () => {
    const marker = memoryMarker();
    const source = await openSeedSource();
    await seedStore({ store: createMemorySessionStore(), source, marker });
    // A fresh store with the old marker: the sample is missing, so everything is seeded.
    const fresh = createMemorySessionStore();
    expect(await seedStore({ store: fresh, source, marker })).toMatchObject({ skipped: false, created: DEMO_SESSIONS.length });
    marker.value = JSON.stringify({ version: 'other', sample: DEMO_SESSIONS[0]!.id });
    expect(await seedStore({ store: fresh, source, marker })).toMatchObject({ skipped: false, created: 0 });
    marker.value = 'not json';
    expect(await seedStore({ store: fresh, source, marker })).toMatchObject({ skipped: false });
  });

  it('without a marker (memory store) always seeds', async () => {
    const store = createMemorySessionStore();
    const source = await openSeedSource();
    await seedStore({ store, source });
    expect(await seedStore({ store, source })).toMatchObject({ skipped: false, kept: DEMO_SESSIONS.length });
  });
});

describe('openSeedSource', () => {
  it('versions a file by its bytes: same content, same version; any change, another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seeds-'));
    const [a, b, c] = ['a.json', 'b.json', 'c.json'].map((f) => join(dir, f)) as [string, string, string];
    writeFileSync(a, '[{"id":"x","status":"paused"}]');
    writeFileSync(b, '[{"id":"x","status":"paused"}]');
    writeFileSync(c, '[{"id":"x","status":"running"}]');
    const [va, vb, vc] = await Promise.all([a, b, c].map(async (f) => (await openSeedSource(f)).version));
    expect(va).toBe(vb);
    expect(vc).not.toBe(va);
    expect(va).not.toBe((await openSeedSource()).version);
    expect(await (await openSeedSource(c)).load()).toEqual([{ id: 'x', status: 'running' }]);
  });

  it('reports an unreadable file at open and bad JSON at load, naming the file', async () => {
    await expect(openSeedSource('/nonexistent/s.json')).rejects.toThrow(/SESSIONS_FILE \/nonexistent\/s.json cannot be read/);
    const file = join(mkdtempSync(join(tmpdir(), 'seeds-')), 'bad.json');
    writeFileSync(file, '[{');
    const source = await openSeedSource(file);
    await expect(source.load()).rejects.toThrow(/is not valid JSON/);
  });
});
