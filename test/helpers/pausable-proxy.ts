/**
 * A TCP proxy on loopback that can cut its traffic silently: `pause()` stops forwarding in
 * both directions but keeps every socket open and buffers what arrives, as a network that
 * drops nothing and delivers nothing; `resume()` forwards the buffered bytes in order and
 * carries on. A client behind it sees no reset and no error, only silence, the way a
 * partitioned link looks (needs no privileges, unlike netns or netem).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A running proxy: its port and its controls. */
export interface PausableProxy {
  /** The loopback port clients connect to. */
  port: number;
  /** Stops forwarding both ways; sockets stay open and buffer. */
  pause(): void;
  /** Forwards what was buffered, in order, then forwards as before. */
  resume(): void;
  /** Closes the listener and every socket. */
  close(): Promise<void>;
}

/** One direction of one connection: forwards, or buffers while paused. */
function forward(from: Socket, to: Socket, isPaused: () => boolean, buffered: Buffer[]) {
  from.on('data', (chunk: Buffer) => {
    if (isPaused()) buffered.push(chunk);
    else to.write(chunk);
  });
}

/**
 * Starts a proxy on a free loopback port to `target`.
 *
 * @example
 * const proxy = await startPausableProxy({ host: '127.0.0.1', port: redis.port });
 * // connect the instance to redis://127.0.0.1:${proxy.port}
 * proxy.pause(); ...; proxy.resume();
 */
export async function startPausableProxy(target: { host: string; port: number }): Promise<PausableProxy> {
  let paused = false;
  const isPaused = () => paused;
  const links = new Set<{ client: Socket; upstream: Socket; up: Buffer[]; down: Buffer[] }>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const link = { client, upstream, up: [] as Buffer[], down: [] as Buffer[] };
    links.add(link);
    forward(client, upstream, isPaused, link.up);
    forward(upstream, client, isPaused, link.down);
    const end = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const link of links) {
        for (const chunk of link.up.splice(0)) link.upstream.write(chunk);
        for (const chunk of link.down.splice(0)) link.client.write(chunk);
      }
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
