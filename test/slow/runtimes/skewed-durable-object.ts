/**
 * The Durable Object store's object in workerd (miniflare), built from this repository's source,
 * as a subclass whose clock a test moves (and whose keys it lists, `POST /keys`): `POST /skew` with a number of ms sets how far ahead of
 * workerd's clock the object runs (and the deadlines its callers state, in their clock, with it). With `persist`, its storage is a SQLite file a bench can read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { DurableObjectNamespaceLike } from '../../../client/webhooks/cloudflare/index.js';

const WORKER = `
import { WebhookStoreObject } from '../../client/webhooks/cloudflare/index.js';
let skew = 0;
export class SkewedStoreObject extends WebhookStoreObject {
  constructor(ctx, env) {
    super(ctx, env, { now: () => Date.now() + skew });
    this.storage = ctx.storage;
  }
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/skew') {
      skew = Number(await request.text());
      return new Response('ok');
    }
    if (path === '/keys') return Response.json([...(await this.storage.list()).keys()]);
    // The Worker's clock moves with the object's: a call's deadline is in the Worker's clock.
    const call = await request.json();
    if (typeof call.deadline === 'number') call.deadline += skew;
    return super.fetch(new Request(request.url, { method: 'POST', body: JSON.stringify(call) }));
  }
}
export default { fetch: () => new Response('the store object only') };
`;

/** A running miniflare with the object bound as `WEBHOOK_STORE`. */
export interface SkewedObject {
  namespace: DurableObjectNamespaceLike;
  /** Moves the object's clock `ms` ahead of workerd's. */
  setSkew(ms: number): Promise<void>;
  /** Every key of the object's storage, in order. */
  keys(): Promise<string[]>;
  /** The directory of the object's SQLite storage, with `persist`. */
  persistDir: string | undefined;
  dispose(): Promise<void>;
}

/** Bundles the object from source and starts it in workerd. */
export async function startSkewedObject(options: { persist?: boolean } = {}): Promise<SkewedObject> {
  const root = resolve(import.meta.dirname, '../../..');
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'do-'));
  writeFileSync(join(dir, 'worker.js'), WORKER);
  const result = await build({
    absWorkingDir: dir,
    entryPoints: ['worker.js'],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    logLevel: 'silent',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
  });
  const persistDir = options.persist ? join(dir, 'state') : undefined;
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: 'worker.js', contents: result.outputFiles[0]!.text }],
    compatibilityDate: '2025-09-01',
    durableObjects: { WEBHOOK_STORE: { className: 'SkewedStoreObject', useSQLite: true } },
    ...(persistDir ? { durableObjectsPersist: persistDir } : {}),
  });
  await mf.ready;
  const namespace = (await mf.getDurableObjectNamespace('WEBHOOK_STORE')) as unknown as DurableObjectNamespaceLike;
  const stub = () => namespace.get(namespace.idFromName('session-resume-api') as never);
  return {
    namespace,
    persistDir,
    async setSkew(ms) {
      await (await stub().fetch('https://webhook-store/skew', { method: 'POST', body: String(ms) })).text();
    },
    keys: async () => (await (await stub().fetch('https://webhook-store/keys', { method: 'POST' })).json()) as string[],
    async dispose() {
      await mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
