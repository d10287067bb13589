import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_SESSIONS, SeedFileError, loadSessionSeeds, parseSessionSeeds } from '../../../server/sessions/session-seeds.js';

describe('session seeds', () => {
  it('the demo set has several paused sessions and one running', () => {
    expect(DEMO_SESSIONS.filter((s) => s.status === 'paused').length).toBeGreaterThanOrEqual(2);
    expect(DEMO_SESSIONS.filter((s) => s.status === 'running')).toHaveLength(1);
  });

  it('reads a seed file, keeping open statuses and ignoring extra members', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'seeds-')), 'sessions.json');
    writeFileSync(
      file,
      JSON.stringify([
        { id: 'a', status: 'paused', note: 'x' },
        { id: 'b', status: 'cancelled' },
      ]),
    );
    expect(await loadSessionSeeds(file)).toEqual([
      { id: 'a', status: 'paused' },
      { id: 'b', status: 'cancelled' },
    ]);
  });

  it('says what is wrong with a bad file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seeds-'));
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '[{');
    await expect(loadSessionSeeds(notJson)).rejects.toThrow(/is not valid JSON/);
    await expect(loadSessionSeeds(join(dir, 'missing.json'))).rejects.toThrow(/cannot be read/);
    expect(() => parseSessionSeeds({ id: 'a' }, 'f')).toThrow(/JSON array/);
    expect(() => parseSessionSeeds([{ id: 'a' }], 'f')).toThrow(/f\[0\].*"status"/);
    expect(() =>
      parseSessionSeeds(
        [
          { id: 'a', status: 'paused' },
          { id: 'a', status: 'running' },
        ],
        'f',
      ),
    ).toThrow(SeedFileError);
  });
});
