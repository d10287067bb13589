/**
 * A private `redis-server` for tests that stop, pause or flood Redis: never the shared one
 * on 6379 (CI uses it after us).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { getFreePort } from './free-port.js';
import { waitFor } from './wait-for.js';

/** A running private Redis: its URL, and controls to stop, pause and restart it. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 2 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port after `stop()`. */
  restart(): Promise<void>;
}

/**
 * Sends PING over a raw socket; true when the answer is +PONG within `timeoutMs` (default
 * 500 ms), or NOAUTH when `passwordSet` (a server with `--requirepass` answers, but refuses PING).
 */
export async function pingRedis(url: string, timeoutMs = 500, passwordSet = false): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG') || (passwordSet && data.toString().startsWith('-NOAUTH'))));
    socket.connect(Number(port || 6379), hostname.replace(/^\[|\]$/g, ''), () => socket.write('PING\r\n'));
  });
}

/**
 * Starts `redis-server` on a free loopback port with no persistence; resolves once it answers
 * PING. With `requirepass`, clients must authenticate (`url` stays without the password).
 */
export async function startRedisServer(options: { requirepass?: string } = {}): Promise<RedisServer> {
  const port = await getFreePort();
  const url = `redis://127.0.0.1:${port}`;
  const auth = options.requirepass === undefined ? [] : ['--requirepass', options.requirepass];
  let child: ChildProcess | undefined;
  const launch = async () => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...auth], { stdio: 'ignore' });
    child = proc;
    const failed = new Promise<never>((_, reject) => {
      proc.once('error', reject);
      proc.once('exit', (code) => reject(new Error(`redis-server exited with code ${code}`)));
    });
    await Promise.race([waitFor(() => pingRedis(url, 500, auth.length > 0), { what: `redis-server on ${port}` }), failed]);
    proc.removeAllListeners('exit');
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  };
  await launch();
  return { url, port, stop, restart: launch };
}
