/** Where the sessions of a fresh store come from: a JSON seed file (`SESSIONS_FILE`) or the demo set. */
import { readFile } from 'node:fs/promises';
import { DEMO_SESSIONS as SHARED_DEMO_SESSIONS } from '../../spec/demo-sessions.js';
import type { SessionSeed } from './session-store.js';

/** The demo set loaded when no seed file is given: several paused sessions and one running. */
export const DEMO_SESSIONS: readonly SessionSeed[] = SHARED_DEMO_SESSIONS;

/** Thrown when a seed file cannot be used; the message names the file and what to fix. */
export class SeedFileError extends Error {
  override name = 'SeedFileError';
}

/**
 * Checks parsed JSON as a seed list: an array of `{ id, status }` with non-empty strings and
 * unique ids. Extra members are ignored. `source` names the file in messages.
 */
export function parseSessionSeeds(value: unknown, source: string): SessionSeed[] {
  if (!Array.isArray(value)) {
    throw new SeedFileError(`${source} must hold a JSON array of { "id": "...", "status": "paused" | "running" | ... }.`);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    const { id, status } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof id !== 'string' || id === '' || typeof status !== 'string' || status === '') {
      throw new SeedFileError(`${source}[${index}] must be an object with non-empty string "id" and "status".`);
    }
    if (seen.has(id)) throw new SeedFileError(`${source}[${index}]: session id "${id}" appears twice.`);
    seen.add(id);
    return { id, status };
  });
}

/** Reads and checks a seed file; throws `SeedFileError` saying what is wrong. */
export async function loadSessionSeeds(path: string): Promise<SessionSeed[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new SeedFileError(`SESSIONS_FILE ${path} cannot be read: ${(cause as Error).message}`, { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new SeedFileError(`SESSIONS_FILE ${path} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return parseSessionSeeds(value, `SESSIONS_FILE ${path}`);
}
