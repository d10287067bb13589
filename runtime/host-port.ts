/** The one `host:port` rule of both packages (Redis Cluster seeds): host, IPv4 or bracketed IPv6, port 1–65535. */
import { parseWholeNumber } from './options-error.js';

/** A parsed `host:port`; `host` without the brackets of an IPv6 address (as ioredis takes it). */
export interface HostPort {
  host: string;
  port: number;
}

const FORM = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/;

/** Undefined for anything but `host:port`, e.g. `parseHostPort('[::1]:7000')` → `{ host: '::1', port: 7000 }`. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = typeof text === 'string' ? FORM.exec(text) : null;
  const port = match ? parseWholeNumber(match[2] as string, { min: 1, max: 65_535 }) : undefined;
  if (!match || port === undefined) return undefined;
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}
