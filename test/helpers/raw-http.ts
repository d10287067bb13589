/**
 * Raw HTTP/1.1 over a socket, for hostile-input tests: sends bytes exactly as given (fetch
 * and node:http normalise methods, headers and paths) and parses what comes back.
 */
import { Socket } from 'node:net';

/** One parsed answer; `interim` holds 1xx status codes seen before it. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  /** Raw header lines, in order, lower-cased names (duplicates kept). */
  headerLines: [string, string][];
  body: string;
  interim: number[];
}

/**
 * Writes `request` to 127.0.0.1:`port` and resolves with the bytes received until the server
 * closes the connection (or `idleMs` pass without any byte: then what came so far).
 */
export function sendRaw(port: number, request: string | Buffer, idleMs = 5000): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), idleMs);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), idleMs);
    });
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    };
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.connect(port, '127.0.0.1', () => socket.write(request));
  });
}

/** Parses the first final answer in `bytes` (after any 1xx); undefined when there is none. */
export function parseAnswer(bytes: Buffer): RawAnswer | undefined {
  let text = bytes.toString('latin1');
  const interim: number[] = [];
  for (;;) {
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = text.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) return undefined;
    const rest = text.slice(end + 4);
    if (status >= 100 && status < 200) {
      interim.push(status);
      text = rest;
      continue;
    }
    const headerLines = lines.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
    const headers = new Headers();
    for (const [name, value] of headerLines) headers.append(name, value);
    const length = Number(headers.get('content-length') ?? rest.length);
    const body = Buffer.from(rest.slice(0, length), 'latin1').toString('utf8');
    return { status, headers, headerLines, body, interim };
  }
}

/** Sends and parses; throws when no complete answer came back. */
export async function requestRaw(port: number, request: string | Buffer, idleMs?: number): Promise<RawAnswer> {
  const bytes = await sendRaw(port, request, idleMs);
  const answer = parseAnswer(bytes);
  if (!answer) throw new Error(`no HTTP answer; received ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  return answer;
}
