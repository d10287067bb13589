/**
 * The server's command as an operator types it: `--help` and `--version` print and exit 0
 * instead of starting a server, and an unknown option is refused, not served.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../../server/version.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function serverBin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'server/main.ts', ...args],
      { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '', PORT: '0' } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('session-resume-api-server', () => {
  it('prints its help, with the commands and the environment, and exits 0', async () => {
    const { code, stdout } = await serverBin(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('webhooks replay');
    expect(stdout).toMatch(/^ {2}PORT +.*\[default: 3000\]$/m);
  });

  it('prints its version and exits 0', async () => {
    const { code, stdout } = await serverBin(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(SERVER_VERSION);
  });

  it('refuses an unknown option instead of serving', async () => {
    const { code, stderr } = await serverBin(['--sandbox', '--no-such-option']);
    expect(code).not.toBe(0);
    expect(stderr).toContain("unknown option '--no-such-option'");
  });
});
