/**
 * A private Redis Cluster for tests: N primaries (and optional replicas) of `redis-server
 * --cluster-enabled yes` on free loopback ports in a temporary directory, joined with
 * `redis-cli --cluster create`. Never the shared Redis on 6379. Always `stop()` it after
 * (in `afterAll` / `finally`): it kills every node and removes the directory.
 *
 * @example
 * const cluster = await startRedisCluster({ primaries: 3 });
 * try {
 *   const client = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: Number(n.split(':')[1]) })));
 *   // ...
 * } finally {
 *   await cluster.stop();
 * }
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { getFreePort } from './free-port.js';
import { pingRedis } from './redis-server.js';
import { waitFor } from './wait-for.js';

const run = promisify(execFile);

/** Options of `startRedisCluster`. */
export interface RedisClusterOptions {
  /** Primaries (default 3, the minimum Redis Cluster accepts). */
  primaries?: number;
  /** Replicas per primary (default 0). */
  replicasPerPrimary?: number;
  /**
   * `cluster-node-timeout` in ms (default 1000): how long a node may be unreachable before it
   * is considered failing. Short in tests so a failover takes a few seconds, not 15 s.
   */
  nodeTimeoutMs?: number;
  /** `appendonly yes` with `appendfsync everysec` (default false: no persistence, faster). */
  appendOnly?: boolean;
  /** How long to wait for `cluster_state:ok` everywhere, in ms (default 30 000). */
  readyTimeoutMs?: number;
}

/** One node of the cluster. */
export interface ClusterNode {
  host: '127.0.0.1';
  port: number;
  /** `host:port`. */
  address: string;
  /** True while this test has it running. */
  running: boolean;
}

/** A running private cluster. */
export interface RedisCluster {
  /** Seed addresses (`127.0.0.1:port`) of every node, primaries first: join with ',' for REDIS_CLUSTER_NODES. */
  nodes: string[];
  /** Every node with its state. */
  all: ClusterNode[];
  /** The node currently serving `key`'s slot as primary (asks a running node). */
  primaryFor(key: string): Promise<ClusterNode>;
  /** Current primaries (asks a running node). */
  primaries(): Promise<ClusterNode[]>;
  /**
   * SIGKILLs a primary: `node` itself, the one serving `key` if a string is given, else the
   * first primary. Resolves with the killed node (bring it back with `restartNode`; it rejoins
   * as a replica after failover).
   */
  killPrimary(target?: string | ClusterNode): Promise<ClusterNode>;
  /** The replicas of a primary right now (asks the primary). */
  replicasOf(primary: ClusterNode): Promise<ClusterNode[]>;
  /** SIGSTOPs a node (it holds its connections but answers nothing); `continueNode` resumes it. */
  pauseNode(node: ClusterNode): void;
  continueNode(node: ClusterNode): void;
  /** Starts a stopped node again on its port, with its nodes.conf (it rejoins the cluster). */
  restartNode(node: ClusterNode): Promise<void>;
  /** Resolves once every running node reports `cluster_state:ok` and agrees on the slots. */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Kills every node (SIGTERM, then SIGKILL after 2 s) and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

interface NodeProcess extends ClusterNode {
  busPort: number;
  child?: ChildProcess;
}

/** Asks one node a command with a short-lived connection. */
async function ask(port: number, ...args: string[]): Promise<unknown> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(args[0]!, ...args.slice(1));
  } finally {
    redis.disconnect();
  }
}

/** `[start, end, [host, port, id], ...replicas]` entries of CLUSTER SLOTS. */
type SlotRange = [number, number, [string, number, string], ...unknown[]];

/** Starts the cluster; resolves once it is usable from every node. */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const primaryCount = options.primaries ?? 3;
  const replicas = options.replicasPerPrimary ?? 0;
  const nodeTimeout = options.nodeTimeoutMs ?? 1000;
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
  const nodes: NodeProcess[] = [];
  const taken = new Set<number>();
  const freePort = async (): Promise<number> => {
    for (;;) {
      const port = await getFreePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  for (let i = 0; i < primaryCount * (1 + replicas); i++) {
    const port = await freePort();
    // cluster-port (Redis >= 7): the bus gets its own free port instead of port + 10000.
    nodes.push({ host: '127.0.0.1', port, address: `127.0.0.1:${port}`, busPort: await freePort(), running: false });
  }

  const launch = async (node: NodeProcess) => {
    const args = [
      '--port',
      String(node.port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(node.busPort),
      '--cluster-config-file',
      `nodes-${node.port}.conf`,
      '--cluster-node-timeout',
      String(nodeTimeout),
      '--dir',
      dir,
      '--dbfilename',
      `dump-${node.port}.rdb`,
      '--save',
      '',
      ...(options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--appenddirname', `aof-${node.port}`] : ['--appendonly', 'no']),
    ];
    const proc = spawn('redis-server', args, { stdio: 'ignore' });
    node.child = proc;
    const failed = new Promise<never>((_, reject) => {
      proc.once('error', reject);
      proc.once('exit', (code) => reject(new Error(`redis-server (cluster node ${node.port}) exited with code ${code}`)));
    });
    await Promise.race([waitFor(() => pingRedis(`redis://127.0.0.1:${node.port}`), { what: `cluster node ${node.port}` }), failed]);
    proc.removeAllListeners('exit');
    proc.once('exit', () => (node.running = false));
    node.running = true;
  };

  const killNode = async (node: NodeProcess, signal: NodeJS.Signals) => {
    const proc = node.child;
    node.child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) {
      node.running = false;
      return;
    }
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGCONT'); // a paused node would not act on SIGTERM
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
    node.running = false;
  };

  // If the test process ends without stop() (a crash, a killed worker), take the nodes along.
  const killAll = () => {
    nodes.forEach((n) => n.child?.kill('SIGKILL'));
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killAll);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killAll);
    await Promise.all(nodes.map((n) => killNode(n, 'SIGTERM')));
    await rm(dir, { recursive: true, force: true });
  };

  const anyRunning = () => {
    const node = nodes.find((n) => n.running);
    if (!node) throw new Error('no cluster node is running');
    return node;
  };
  const slots = async () => (await ask(anyRunning().port, 'CLUSTER', 'SLOTS')) as SlotRange[];
  const byPort = (port: number) => {
    const node = nodes.find((n) => n.port === port);
    if (!node) throw new Error(`port ${port} is not a node of this cluster`);
    return node;
  };

  const waitUntilOk = async (timeoutMs = options.readyTimeoutMs ?? 30_000) => {
    await waitFor(
      async () => {
        const running = nodes.filter((n) => n.running);
        const views = await Promise.all(
          running.map(async (n) => {
            const info = String(await ask(n.port, 'CLUSTER', 'INFO'));
            const ranges = (await ask(n.port, 'CLUSTER', 'SLOTS')) as SlotRange[];
            const view = ranges
              .map(([start, end, [, port]]) => `${start}-${end}@${port}`)
              .sort()
              .join(',');
            return { ok: /cluster_state:ok/.test(info) && /cluster_slots_assigned:16384/.test(info), view };
          }),
        );
        // Every node healthy and agreeing on who serves which slot, and no slot served by a dead node.
        const alive = new Set(running.map((n) => n.port));
        const first = views[0]?.view ?? '';
        const servers = first.split(',').map((r) => Number(r.split('@')[1]));
        return views.every((v) => v.ok && v.view === first) && servers.every((p) => alive.has(p));
      },
      { timeoutMs, intervalMs: 100, what: 'cluster_state:ok on every node' },
    );
  };

  try {
    await Promise.all(nodes.map(launch));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => n.address), '--cluster-replicas', String(replicas), '--cluster-yes'], {
      timeout: 30_000,
    });
    await waitUntilOk();
    if (replicas > 0) {
      // A replica that has not finished its first sync cannot take over: wait for every link.
      await waitFor(
        async () => {
          const states = await Promise.all(nodes.map(async (n) => String(await ask(n.port, 'INFO', 'replication'))));
          const linked = states.filter((s) => /role:slave/.test(s) && /master_link_status:up/.test(s));
          return linked.length === primaryCount * replicas;
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'replicas in sync' },
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const primaries = async () => {
    const ports = new Set((await slots()).map(([, , [, port]]) => Number(port)));
    return nodes.filter((n) => ports.has(n.port));
  };
  const primaryFor = async (key: string) => {
    const slot = Number(await ask(anyRunning().port, 'CLUSTER', 'KEYSLOT', key));
    const range = (await slots()).find(([start, end]) => slot >= start && slot <= end);
    if (!range) throw new Error(`slot ${slot} is not served`);
    return byPort(Number(range[2][1]));
  };

  return {
    nodes: nodes.map((n) => n.address),
    all: nodes,
    primaryFor,
    primaries,
    async killPrimary(target) {
      const node = target === undefined ? (await primaries())[0] : typeof target === 'string' ? await primaryFor(target) : byPort(target.port);
      if (!node) throw new Error('no primary found');
      await killNode(byPort(node.port), 'SIGKILL');
      return node;
    },
    async replicasOf(primary) {
      const info = String(await ask(primary.port, 'INFO', 'replication'));
      const ports = [...info.matchAll(/^slave\d+:.*port=(\d+)/gm)].map((m) => Number(m[1]));
      return ports.map(byPort);
    },
    pauseNode: (node) => void byPort(node.port).child?.kill('SIGSTOP'),
    continueNode: (node) => void byPort(node.port).child?.kill('SIGCONT'),
    restartNode: (node) => launch(byPort(node.port)),
    waitUntilOk,
    stop,
  };
}

/** `host:port` seeds as ioredis `Cluster` startup nodes. */
export function clusterSeeds(nodes: readonly string[]): { host: string; port: number }[] {
  return nodes.map((address) => {
    const at = address.lastIndexOf(':');
    return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
  });
}
