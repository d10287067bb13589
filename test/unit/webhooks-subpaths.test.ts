/**
 * session-resume-api/webhooks loads no Redis library, directly or through anything it
 * imports; the Redis store is its own subpath, and a missing bullmq or ioredis there gives an
 * error that names the install command. Option errors are one typed class.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver, OptionsError } from '../../client/webhooks/index.js';
import { loadRedisLibraries, REDIS_STORE_INSTALL, RedisLibrariesMissingError } from '../../client/webhooks/redis/libraries.js';
import { checkInteger } from '@session-resume-api/runtime/options-error';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Value (not type-only) import specifiers of a file, static and dynamic. */
function valueImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
    if (!m[2]) found.push(m[3]!);
  }
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(join(root, file))) continue;
    const specs = valueImports(file);
    seen.set(file, specs);
    for (const s of specs) {
      if (s.startsWith('.')) queue.push(relative(root, resolve(root, dirname(file), s)).replace(/\.js$/, '.ts'));
    }
  }
  return seen;
}

const redisLibraries = (graph: Map<string, string[]>) =>
  [...graph].flatMap(([file, specs]) => specs.filter((s) => /^(bullmq|ioredis)(\/|$)/.test(s)).map((s) => `${file} → ${s}`));

describe('webhooks subpaths', () => {
  it('nothing reachable from client/webhooks/index.ts loads bullmq or ioredis', () => {
    const graph = reachable('client/webhooks/index.ts');
    expect([...graph.keys()]).toEqual(expect.arrayContaining(['client/webhooks/receiver.ts', 'client/webhooks/memory-event-store.ts']));
    expect(redisLibraries(graph)).toEqual([]);
  });

  it('the check sees the Redis subpath load them (so it can fail)', () => {
    const graph = reachable('client/webhooks/redis/index.ts');
    expect(redisLibraries(graph).length).toBeGreaterThan(0);
  });

  it('a missing peer dependency gives an error naming the install command', async () => {
    const missing = (name: string) => Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }));
    const error = await loadRedisLibraries(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisLibrariesMissingError);
    expect((error as Error).message).toContain('npm install bullmq ioredis');
    expect(REDIS_STORE_INSTALL).toBe('npm install bullmq ioredis');
    expect((error as Error).cause).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
    // Any other loading failure is passed through as it is.
    const broken = new Error('syntax error in bullmq');
    await expect(loadRedisLibraries(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('option errors are one exported class with the rule in the message', () => {
    expect(() => createMemoryEventStore({ concurrency: 0 })).toThrow(OptionsError);
    expect(() => createMemoryEventStore({ concurrency: 1.5 })).toThrow('createMemoryEventStore: concurrency must be an integer ≥ 1 (got 1.5)');
    expect(() => createWebhookReceiver({ store: createMemoryEventStore(), onEvent: 'x' } as never)).toThrow(OptionsError);
    expect(() => checkInteger('f: n', '3', { min: 1, max: 9 })).toThrow('f: n must be an integer from 1 to 9 (got "3")');
    expect(() => checkInteger('f: n', 10, { max: 9 })).toThrow('f: n must be an integer ≤ 9 (got 10)');
    expect(() => checkInteger('f: n', 9, { min: 1, max: 9 })).not.toThrow();
    expect(new OptionsError('x')).toBeInstanceOf(TypeError);
  });
});
