/** Runs one autocannon load against a loopback URL and keeps the numbers the report needs. */
import autocannon from 'autocannon';

/** One load: where, what to send, for how long. */
export interface LoadCase {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or a function giving the body of request n (distinct payloads). */
  body?: string | ((n: number) => string);
  /** The path of request n (default: the URL's); e.g. a different session on each request. */
  path?: (n: number) => string;
  /** Headers computed from each request's body (a signature), added to `headers`. */
  sign?: (body: string) => Record<string, string>;
  /** Seconds of measured load (default 3). */
  durationS?: number;
  /** Exactly this many requests instead of a duration. */
  amount?: number;
  /** Concurrent connections (default 10). */
  connections?: number;
}

/** What one load measured: requests per second and latency percentiles in ms. */
export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** The server's own CPU time per request, in µs (isolated targets only). */
  cpuMicrosPerRequest?: number;
}

/** Runs the load; never throws for HTTP answers (non-2xx and errors are counted). */
export async function runLoad(load: LoadCase): Promise<LoadResult> {
  let n = 0;
  const { body, path, sign } = load;
  const perRequest = typeof body === 'function' || path !== undefined || sign !== undefined;
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers: load.headers ?? {},
    ...(load.amount === undefined ? { duration: load.durationS ?? 3 } : { amount: load.amount }),
    connections: load.connections ?? 10,
    ...(typeof body === 'string' ? { body } : {}),
    ...(perRequest
      ? {
          requests: [
            {
              setupRequest: (req: autocannon.Request) => {
                const i = n++;
                const text = typeof body === 'function' ? body(i) : body;
                const signed = sign && text !== undefined ? { headers: { ...req.headers, ...sign(text) } } : {};
                return { ...req, ...(typeof body === 'function' ? { body: text } : {}), ...(path ? { path: path(i) } : {}), ...signed };
              },
            },
          ],
        }
      : {}),
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
