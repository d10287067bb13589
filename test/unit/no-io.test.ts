/** The unit tier's guard (test/setup/no-io.ts) refuses sockets, servers and child processes. */
import { execFileSync } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';

describe('unit tier guard', () => {
  it('refuses a socket, a listening server and a child process', () => {
    expect(() => connect(1, '127.0.0.1')).toThrow(/move this test to test\/integration/);
    expect(() => createServer().listen(0)).toThrow(/without servers/);
    expect(() => execFileSync('true')).toThrow(/without child processes/);
  });
});
