/**
 * The URL token is part of the receiver's URL, so every log that records request paths carries
 * it (`wrangler dev` prints each request: test/slow/runtimes/wrangler.test.ts shows it). The pages
 * that teach the token say so, and the receiver's first example leads with the signing secret.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('the URL token in the docs', () => {
  it.each(['docs/receiver.md', 'docs/local-webhooks.md'])('%s says the token shows in request logs and to rely on the secret', (page) => {
    const text = read(page).replace(/\s+/g, ' ');
    expect(text).toMatch(/(every|any) log that records request paths/);
    expect(text).toMatch(/`wrangler dev`/);
    expect(text).toMatch(/without a valid signature is (then )?refused/);
  });

  it("docs/receiver.md's first example sets the signing secret before the URL token", () => {
    const first = /^```ts\n([\s\S]*?)^```$/m.exec(read('docs/receiver.md'))?.[1] ?? '';
    expect(first.indexOf('secret:')).toBeGreaterThan(-1);
    expect(first.indexOf('secret:')).toBeLessThan(first.indexOf('urlToken:'));
  });
});
