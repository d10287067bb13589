/**
 * The one `host:port` rule of both packages (Redis Cluster seed nodes of the server's
 * `REDIS_CLUSTER_NODES` and of the receiver's `clusterNodes`): a host name or IPv4 address, or an
 * IPv6 address in brackets, then a port from 1 to 65535. No scheme, path or spaces.
 */
import { parseWholeNumber } from './options-error.js';

/** A parsed `host:port`; `host` without the brackets of an IPv6 address (as ioredis takes it). */
export interface HostPort {
  host: string;
  port: number;
}

const FORM = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/;

/**
 * Reads `host:port`; undefined for anything else.
 *
 * @example parseHostPort('[::1]:7000') // { host: '::1', port: 7000 }; parseHostPort('redis://a:1') // undefined
 */
export function parseHostPort(text: string): HostPort | undefined {
  const match = typeof text === 'string' ? FORM.exec(text) : null;
  const port = match ? parseWholeNumber(match[2] as string, { min: 1, max: 65_535 }) : undefined;
  if (!match || port === undefined) return undefined;
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}
