/** Starts the real Prism CLI (mock or proxy) on a free loopback port for a test, and stops it after. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { specPath } from '@session-resume-api/runtime/contract';
import { getFreePort } from './free-port.js';
import { waitFor } from './wait-for.js';

const prismBin = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url));

/** A running Prism process. */
export interface PrismServer {
  url: string;
  /** Everything Prism printed, for assertions on its validation messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Options: `proxyTo` runs `prism proxy` in front of that URL instead of `prism mock`; `errors` adds `--errors`. */
export interface PrismOptions {
  proxyTo?: string;
  errors?: boolean;
  spec?: string;
}

/** Starts Prism and resolves when it accepts requests (it takes a few seconds to boot). */
export async function startPrism(options: PrismOptions = {}): Promise<PrismServer> {
  const port = await getFreePort();
  const spec = options.spec ?? specPath;
  const args = options.proxyTo ? ['proxy', spec, options.proxyTo] : ['mock', spec];
  args.push('--host', '127.0.0.1', '--port', String(port));
  if (options.errors) args.push('--errors');
  const proc = spawn(prismBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`prism exited with code ${code}:\n${log}`))));
  exited.catch(() => undefined);
  await Promise.race([waitFor(() => log.includes('Prism is listening'), { timeoutMs: 30_000, what: 'Prism to listen' }), exited]);
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => log,
    stop: async () => {
      if (proc.exitCode !== null) return;
      proc.removeAllListeners('exit');
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await done;
    },
  };
}
