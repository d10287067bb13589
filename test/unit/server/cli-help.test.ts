/**
 * `session-resume-api-server --help` lists every command and every environment variable with
 * its default, from the one table in server/config.ts; `--version` on both programs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createProgram, runProgram } from '../../../cli/program.js';
import { PACKAGE_VERSION } from '../../../client/version.js';
import { runServerCli } from '../../../server/cli/program.js';
import { ENVIRONMENT } from '../../../server/config.js';
import { SERVER_VERSION } from '../../../server/version.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

async function serverCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runServerCli(args, {}, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('the server program', () => {
  it('lists in --help every command, nested ones by their whole path', async () => {
    const { code, out } = await serverCli(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'worker',
      'seed [options]',
      'webhooks show [options] <webhook-id>',
      'webhooks list [options]',
      'webhooks stats [options]',
      'webhooks dead [options]',
      'webhooks replay [options] [webhook-id]',
      'webhooks recover [options]',
      'webhooks endpoint [options]',
      'webhooks endpoint enable',
      '--sandbox',
      '-v, --version',
    ]) {
      expect(out).toContain(`  ${command}`);
    }
  });

  it('lists in --help every variable of the environment table with its default', async () => {
    const { out } = await serverCli(['--help']);
    for (const [name, variable] of Object.entries(ENVIRONMENT)) {
      expect(out).toMatch(new RegExp(`^  ${name} +.+\\[default: ${String(variable.default).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\]$`, 'm'));
    }
  });

  // A mutation run (npm run test:mutation) instruments the file, so its text no longer reads as written.
  const configSource = read('server/config.ts');
  it.skipIf(configSource.includes('stryMutAct_'))('has every variable loadConfig reads in the environment table', () => {
    const source = configSource;
    const reads = [
      // Any reader called with the name first (text, integer, list, flag(env, …), or one added later), and env.X / env['X'].
      ...source.matchAll(/\b\w+\(\s*(?:env,\s*)?'([A-Z][A-Z0-9_]{2,})'|\benv(?:\.([A-Z][A-Z0-9_]*)|\['([A-Z][A-Z0-9_]*)'\])/g),
    ].map((m) => m[1] ?? m[2] ?? m[3]);
    expect(reads).toContain('PORT');
    expect(reads).toContain('WEBHOOK_ALLOW_PRIVATE');
    expect([...new Set(reads)].filter((name) => !(name && name in ENVIRONMENT))).toEqual([]);
  });

  it('prints its version, the package version', async () => {
    const { code, out } = await serverCli(['--version']);
    expect(code).toBe(0);
    expect(out.trim()).toBe(SERVER_VERSION);
    expect(SERVER_VERSION).toBe((JSON.parse(read('server/package.json')) as { version: string }).version);
    // One version for every package: the client's and the command's too, and the command is
    // built with the library of that version.
    expect(SERVER_VERSION).toBe((JSON.parse(read('client/package.json')) as { version: string }).version);
    const cli = JSON.parse(read('cli/package.json')) as { version: string; devDependencies: Record<string, string> };
    expect([cli.version, cli.devDependencies['session-resume-api']]).toEqual([SERVER_VERSION, SERVER_VERSION]);
  });

  it('takes -v and -V for --version too', async () => {
    for (const flag of ['-v', '-V']) {
      const { code, out, err } = await serverCli([flag]);
      expect({ code, out: out.trim(), err }, flag).toEqual({ code: 0, out: SERVER_VERSION, err: '' });
    }
  });

  it('exits 2 for a usage problem, as the client program does: an unknown option or command, a missing argument', async () => {
    for (const args of [['--no-such-option'], ['webhooks', 'show'], ['webhooks', 'list', '--limit', 'x'], ['no-such-command']]) {
      const { code, err } = await serverCli(args);
      expect(code, args.join(' ')).toBe(2);
      expect(err, args.join(' ')).not.toBe('');
    }
  });
});

describe('the client program', () => {
  it('has --version with the package version', () => {
    const program = createProgram([]);
    expect(program.version()).toBe(PACKAGE_VERSION);
    expect(program.options.map((o) => o.long)).toContain('--version');
  });

  it('takes -v and -V for --version too, ending in 0', async () => {
    for (const flag of ['-v', '-V']) {
      let out = '';
      const program = createProgram([]).configureOutput({ writeOut: (text) => (out += text) });
      expect(await runProgram(program, ['node', 'session-resume-api', flag]), flag).toBe(0);
      expect(out.trim(), flag).toBe(PACKAGE_VERSION);
    }
  });
});
