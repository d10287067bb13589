/**
 * Keeps the documentation's shell examples true, as written: every fenced block tagged
 * ```sh test in README.md, docs/*.md and examples/webhook-receiver/README.md is run, in that
 * order, with the ports, URLs and variables the pages show. What the pages tell a reader to
 * start is started on the port they name: the reference server (`npm start`, 3000), the sandbox
 * (`npm run sandbox`, 3100), the example receiver (`PORT=3001`) and the deliberately naive
 * receiver of examples/naive-receiver (3002). No command or expected line is rewritten: the
 * test sets only the variables the pages use (`$KEY`, `$TOKEN`). Each `# ` line under a command
 * must appear in its output (`…` matches anything; `# exit N` is the exit code). Also: the
 * plain-text key and curl line `npm start` prints work as printed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matches, testedSteps } from '../helpers/doc-blocks.js';
import { connect } from 'node:net';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KEY = 'readme-key-1';
const TOKEN = 'readme-token-0123456789abcdefghij';

/** The ports the pages show: `npm start`, `npm run sandbox`, the example receiver, the naive receiver. */
const DOCUMENTED_PORTS = { server: 3000, sandbox: 3100, receiver: 3001, naive: 3002 } as const;

let server: ServerProcess;
let sandbox: SandboxProcess;
let redis: RedisServer;
let receiver: ChildProcess;
let naive: ChildProcess;

/** Refuses to start when something else listens on a documented port: the pages' commands would reach it. */
async function assertFree(port: number): Promise<void> {
  const taken = await new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.once('close', () => socket.destroy());
    socket.once('connect', () => socket.destroy());
  });
  if (taken) throw new Error(`port ${port} is in use: the docs examples run on the ports the pages show; stop what listens on 127.0.0.1:${port}.`);
}

/** Starts an example as its page says (`PORT=… node --conditions=source --import tsx …`); resolves once it logs "listening". */
async function startExample(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('"listening"'), { timeoutMs: 30_000, what: script });
  return child;
}

beforeAll(async () => {
  for (const port of Object.values(DOCUMENTED_PORTS)) await assertFree(port);
  server = await startServerProcess({ API_KEYS: KEY, PORT: String(DOCUMENTED_PORTS.server) });
  sandbox = await startSandboxProcess({ SANDBOX_PORT: String(DOCUMENTED_PORTS.sandbox) });
  redis = await startRedisServer();
  receiver = await startExample('examples/webhook-receiver/server.ts', {
    PORT: String(DOCUMENTED_PORTS.receiver),
    REDIS_URL: redis.url,
    WEBHOOK_URL_TOKEN: TOKEN,
  });
  naive = await startExample('examples/naive-receiver/server.ts', { PORT: String(DOCUMENTED_PORTS.naive) });
}, 90_000);

afterAll(async () => {
  receiver?.kill('SIGTERM');
  naive?.kill('SIGTERM');
  await server?.stop();
  await sandbox?.stop();
  await redis?.stop();
});

/** Runs one command with bash in the repository, after the block's earlier exports. */
function run(command: string, exports: string[]): Promise<{ code: number; output: string }> {
  const script = [...exports, command].join('\n');
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      // 90 s: `client grade --run` lasts as long as the graded client's own waits (a curl loop waits about 45 s).
      { cwd: root, timeout: 90_000, env: { PATH: process.env.PATH ?? '', KEY, TOKEN } },
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
          for (const line of step.expected) expect(matches(output, line), `${step.command}\n--- expected: ${line}\n--- got:\n${output}`).toBe(true);
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
        execFile('bash', ['-c', `export KEY=${key}\n${curl}`], { timeout: 20_000 }, (error, stdout) => resolve({ code: error ? 1 : 0, output: stdout })),
      );
      expect(code).toBe(0);
      expect(answer).toBe('{"success":true,"message":"Session resumed."}');
    } finally {
      await started.stop();
    }
  });
});
