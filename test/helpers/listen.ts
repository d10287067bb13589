/** Serves an express app (or any request listener) on 127.0.0.1, port 0, for one test file. */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server: its base URL and a close that also drops keep-alive sockets. */
export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Listens on a free loopback port. */
export async function listen(handler: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
