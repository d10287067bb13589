/**
 * Reads a HAR file of any size up to a bound, entry by entry: the file is streamed through a
 * JSON parser that hands over one entry of `log.entries` at a time, so no string ever holds the
 * whole file (a HAR over Node's longest string, about 512 MiB, cannot be read whole). Each entry
 * keeps at most `CAPTURE_LIMIT_BYTES` of each body, as the proxy does.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { JSONParser } from '@streamparser/json';
import type { Exchange } from './exchange.js';
import { HarError, inStartOrder, parseHar, readHarEntry } from './har.js';
import { CAPTURE_LIMIT_BYTES } from './watch-proxy.js';

/** Largest HAR file read, in bytes. */
export const MAX_HAR_BYTES = 4 * 1024 ** 3;

/** Most entries read from one HAR file. */
export const MAX_HAR_ENTRIES = 1_000_000;

/** A file with no entry and at most this size is read whole, so a missing `log.entries` is named exactly. */
const WHOLE_READ_BYTES = 16 * 1024 ** 2;

/** Options of `readHarFile`. */
export interface HarFileOptions {
  /**
   * Largest file read, in bytes.
   * @defaultValue `MAX_HAR_BYTES` (4 GiB)
   */
  maxBytes?: number;
  /**
   * Most entries read.
   * @defaultValue `MAX_HAR_ENTRIES` (1,000,000)
   */
  maxEntries?: number;
}

/** Reads `file` into exchanges in start order. Throws `HarError` for a document past the bounds or not HAR; rethrows a read error. */
export async function readHarFile(file: string, options: HarFileOptions = {}): Promise<Exchange[]> {
  const maxBytes = options.maxBytes ?? MAX_HAR_BYTES;
  const maxEntries = options.maxEntries ?? MAX_HAR_ENTRIES;
  const { size } = await stat(file);
  if (size > maxBytes) throw new HarError(`the file is larger than ${maxBytes} bytes (${size}); split the recording`);
  const exchanges: Exchange[] = [];
  const parser = new JSONParser({ paths: ['$.log.entries.*'], keepStack: false, stringBufferSize: 64 * 1024 });
  parser.onValue = ({ value }) => {
    if (exchanges.length >= maxEntries) throw new HarError(`the file holds more than ${maxEntries} entries; split the recording`);
    exchanges.push(withCappedBodies(readHarEntry(value, exchanges.length)));
  };
  let offset = 0;
  try {
    for await (const chunk of createReadStream(file)) {
      parser.write(chunk as Buffer);
      offset += (chunk as Buffer).length;
    }
    if (!parser.isEnded) parser.end();
  } catch (error) {
    if (error instanceof HarError) throw error;
    if ((error as NodeJS.ErrnoException).code !== undefined) throw error;
    // The parser's message quotes the text, which may hold a token: only the place is said.
    throw new HarError(`not JSON (near byte ${offset})`, { cause: error });
  }
  if (exchanges.length === 0 && size <= WHOLE_READ_BYTES) return parseHar(await readFile(file, 'utf8'));
  if (exchanges.length === 0) throw new HarError('no entry found at /log/entries');
  return inStartOrder(exchanges);
}

/** A body over the capture limit is not kept for the checks (its shape is not graded). */
function withCappedBodies(exchange: Exchange): Exchange {
  const cap = (text: string | undefined) => (text !== undefined && Buffer.byteLength(text) > CAPTURE_LIMIT_BYTES ? undefined : text);
  return { ...exchange, requestBody: cap(exchange.requestBody), responseBody: cap(exchange.responseBody) };
}
