/**
 * Whether the mock's port is free, asked before Prism starts: Prism answers a busy port with its
 * whole usage text and a bare EADDRINUSE, which names neither the port nor what to change.
 */
import { createServer } from 'node:net';

/** Resolves undefined when `host:port` can be listened on, else the one line that says what to do. */
export async function busyPortMessage(host: string, port: number): Promise<string | undefined> {
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        resolve(`${host}:${port} is already in use: set PORT to a free port (PORT=${port === 65_535 ? port - 1 : port + 1} npm run mock).`);
      else reject(new Error(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    });
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}
