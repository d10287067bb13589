/**
 * Pieces the delivery e2e tests share: a private redis-server with its pid (for kill -STOP), a
 * recording HTTPS receiver, and reference-server processes on that Redis delivering to it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { startHttpsReceiver, type HttpsReceiver, type ReceiverHandler } from './tls.js';

/** The API key every delivery test server accepts. */
export const API_KEY = 'delivery-test-key';
/** A signing secret in the Standard Webhooks form. */
export const SECRET = `whsec_${Buffer.from('delivery-test-secret-0123456789abcdef').toString('base64')}`;

/** A private Redis plus its process id. */
export async function startPrivateRedis(): Promise<RedisServer & { pid: () => Promise<number> }> {
  const server = await startRedisServer();
  const pid = async () => {
    const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      const info = await client.info('server');
      return Number(/process_id:(\d+)/.exec(info)?.[1]);
    } finally {
      client.disconnect();
    }
  };
  return { ...server, pid };
}

/** Writes the seed file and the receiver's CA; returns their paths. */
export function writeFixtures(receiver: HttpsReceiver, sessionIds: string[]): { caFile: string; sessionsFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'delivery-'));
  const caFile = join(dir, 'ca.pem');
  const sessionsFile = join(dir, 'sessions.json');
  writeFileSync(caFile, receiver.certificate.cert);
  writeFileSync(sessionsFile, JSON.stringify(sessionIds.map((id) => ({ id, status: 'paused' }))));
  return { caFile, sessionsFile };
}

/** The environment of a server on `redisUrl` delivering to `receiver`. */
export function serverEnv(redisUrl: string, receiver: HttpsReceiver, files: { caFile: string; sessionsFile: string }, extra: Record<string, string> = {}) {
  return {
    API_KEYS: API_KEY,
    REDIS_URL: redisUrl,
    SESSIONS_FILE: files.sessionsFile,
    WEBHOOK_URL: `${receiver.origin}/hooks/session-events`,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_CA_FILE: files.caFile,
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_RETRY_SCHEDULE: '0,200ms,500ms,1s,1s,1s,1s,1s,1s,1s',
    ...extra,
  };
}

export { startHttpsReceiver, startServerProcess, type HttpsReceiver, type ReceiverHandler, type ServerProcess };

/** POSTs a resume with an optional Idempotency-Key; resolves with status, body text and headers. */
export async function postResume(baseUrl: string, sessionId: string, key?: string) {
  const res = await fetch(`${baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/resume`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, ...(key ? { 'idempotency-key': key } : {}) },
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The session.resumed deliveries the receiver got for `sessionId`. */
export function deliveriesFor(receiver: HttpsReceiver, sessionId: string) {
  return receiver.requests.filter((r) => {
    try {
      return (JSON.parse(r.body) as { session?: { id?: string } }).session?.id === sessionId;
    } catch {
      return false;
    }
  });
}
