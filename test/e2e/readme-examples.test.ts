/**
 * Keeps the documentation's shell examples true: every fenced block tagged ```sh test in
 * README.md, docs/*.md and examples/webhook-receiver/README.md is run, in that order, against
 * one started reference server (port 3000 in the text), the example receiver (port 3001) and
 * the deliberately naive receiver of examples/naive-receiver (port 3002),
 * and each `# ` line under a command must appear in its output (`…` matches anything;
 * `# exit N` is the exit code). Also: the plain-text key and curl line `npm start` prints work
 * as printed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matches, testedSteps } from '../helpers/doc-blocks.js';
import { getFreePort } from '../helpers/free-port.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KEY = 'readme-key-1';
const TOKEN = 'readme-token-0123456789abcdefghij';

let server: ServerProcess;
let redis: RedisServer;
let receiver: ChildProcess;
let receiverUrl: string;
let naive: ChildProcess;
let naiveUrl: string;
let bin: string;

/** Starts an example on a free port; resolves its base URL once it logs "listening". */
async function startExample(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await getFreePort();
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('"listening"'), { timeoutMs: 30_000, what: script });
  return { child, url: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  server = await startServerProcess({ API_KEYS: KEY });
  redis = await startRedisServer();
  ({ child: receiver, url: receiverUrl } = await startExample('examples/webhook-receiver/server.ts', { REDIS_URL: redis.url, WEBHOOK_URL_TOKEN: TOKEN }));
  ({ child: naive, url: naiveUrl } = await startExample('examples/naive-receiver/server.ts', {}));
  // `npx session-resume-api` as a clone runs it once built; here from source, the same program.
  bin = mkdtempSync(join(tmpdir(), 'readme-bin-'));
  const shim = join(bin, 'npx');
  writeFileSync(
    shim,
    `#!/usr/bin/env bash\nif [ "$1" = session-resume-api ]; then shift; exec "${process.execPath}" --import tsx "${root}client/cli/main.ts" "$@"; fi\necho "shim: only npx session-resume-api" >&2; exit 127\n`,
  );
  chmodSync(shim, 0o755);
}, 90_000);

afterAll(async () => {
  receiver?.kill('SIGTERM');
  naive?.kill('SIGTERM');
  await server?.stop();
  await redis?.stop();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

/** Runs one command with bash in the repository, after the block's earlier exports. */
function run(command: string, exports: string[]): Promise<{ code: number; output: string }> {
  const local = (text: string) => text.replaceAll('http://127.0.0.1:3000', server.url).replaceAll('127.0.0.1:3001', receiverUrl.slice(7)).replaceAll('127.0.0.1:3002', naiveUrl.slice(7));
  const script = [...exports, command].map(local).join('\n');
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      // 90 s: `client grade --run` lasts as long as the graded client's own waits (a curl loop waits about 45 s).
      { cwd: root, timeout: 90_000, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, KEY, TOKEN } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** The pages whose examples run, in order; the blocks of one page share the server with the next. */
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
  'examples/webhook-receiver/README.md',
];

it('runs the examples of the README, the CLI page and the example receiver', () => {
  for (const page of ['README.md', 'docs/cli.md', 'examples/webhook-receiver/README.md']) {
    expect(testedSteps(readFileSync(join(root, page), 'utf8')).length, page).toBeGreaterThan(0);
  }
});

for (const file of pages) {
  const blocks = testedSteps(readFileSync(join(root, file), 'utf8'));
  if (blocks.length === 0) continue;
  describe(`${file}: the shell examples tagged "sh test" print what the text shows`, () => {
    blocks.forEach((steps, index) => {
      it(`block ${index + 1}: ${steps.find((s) => !s.command.startsWith('export '))?.command.slice(0, 70)}`, async () => {
        const exports: string[] = [];
        for (const step of steps) {
          if (step.command.startsWith('export ')) {
            exports.push(step.command);
            continue;
          }
          const { code, output } = await run(step.command, exports);
          for (const line of step.expected) {
            const local = line.replaceAll('127.0.0.1:3001', receiverUrl.slice(7)).replaceAll('127.0.0.1:3002', naiveUrl.slice(7));
            expect(matches(output, local), `${step.command}\n--- expected: ${local}\n--- got:\n${output}`).toBe(true);
          }
          if (step.exitCode !== undefined) expect(code, `${step.command}\n${output}`).toBe(step.exitCode);
        }
      }, 120_000);
    });
  });
}

describe('npm start without API_KEYS', () => {
  it('prints the generated key and a curl line in plain text, and that line works', async () => {
    const started = await startServerProcess({});
    try {
      const output = started.output();
      const key = /Development API key \(generated for this run; set API_KEYS to choose your own\): (dev_[\w-]+)/.exec(output)?.[1];
      expect(key, output).toBeDefined();
      const curl = output.split('\n').find((line) => line.trim().startsWith('curl '));
      expect(curl).toContain(`${started.url}/v1/sessions/sess_paused_1/resume`);
      const { code, output: answer } = await new Promise<{ code: number; output: string }>((resolve) =>
        execFile('bash', ['-c', `export KEY=${key}\n${curl}`], { timeout: 20_000 }, (error, stdout) =>
          resolve({ code: error ? 1 : 0, output: stdout }),
        ),
      );
      expect(code).toBe(0);
      expect(answer).toBe('{"success":true,"message":"Session resumed."}');
    } finally {
      await started.stop();
    }
  });
});
