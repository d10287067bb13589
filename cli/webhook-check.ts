/** `webhook check`: the webhook troubleshooting list automated, one line per check, stopping at the first failure. */
import { deliverEvent, DELIVERY_TIMEOUT_MS, type DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { resolveWebhookHost } from '@session-resume-api/runtime/delivery/resolve-webhook-host';
import { classifyAddress, validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { redactWebhookUrl } from '@session-resume-api/runtime/redact-url';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { createProbeEvent } from '@session-resume-api/runtime/webhook-probe';
import { createCliSigner, newWebhookId, withSigningAdvice } from './webhook-signing.js';

/** Options of `runWebhookCheck`. */
export interface WebhookCheckOptions {
  /**
   * Allow loopback receivers and skip certificate verification for them only.
   * @defaultValue false
   */
  insecureLocalhost?: boolean;
  /**
   * CA certificate(s) to trust instead of the system roots (PEM).
   * @defaultValue the system roots
   */
  ca?: string | Buffer;
  /**
   * Deadline of the test delivery in ms.
   * @defaultValue 5000: a receiver answers 200 within 5 s
   */
  timeoutMs?: number;
  /**
   * Standard Webhooks secret (`whsec_` + base64) to sign the probe with, as the service does.
   * @defaultValue unsigned
   */
  secret?: string;
  /**
   * Where lines go.
   * @defaultValue stdout
   */
  print?: (line: string) => void;
}

/** The probe (runtime/webhook-probe.ts): the receiver kit acknowledges it without recording it; others see an unknown kind. */
export function checkEvent(): SessionEvent {
  return createProbeEvent();
}

const isPlainHttp = (url: string) => /^http:\/\//i.test(url);

/**
 * The URL rules before any DNS lookup: a valid URL, then https:// (or http:// with `insecureLocalhost`,
 * kept only if the host is loopback). `refused`: the host is an address the rules refuse.
 */
export type UrlSchemeCheck = { ok: true; plain: boolean; refused?: string } | { ok: false; step: 'URL valid' | 'HTTPS'; reason: string };

/** Judges `url` by the webhook URL rules (runtime/webhook-url.ts), as `webhook check` and `webhook grade` do. */
export function checkUrlScheme(url: string, insecureLocalhost: boolean | undefined): UrlSchemeCheck {
  const plain = Boolean(insecureLocalhost) && isPlainHttp(url);
  const check = validateWebhookUrl(plain ? url.replace(/^http:/i, 'https:') : url, { allowLoopback: insecureLocalhost });
  if (check.ok) return { ok: true, plain };
  if (check.code === 'blocked_address') return { ok: true, plain, refused: check.reason };
  if (check.code !== 'not_https') return { ok: false, step: 'URL valid', reason: check.reason };
  const hint = isPlainHttp(url) ? ' (a loopback receiver may use http:// with --insecure-localhost)' : '';
  return { ok: false, step: 'HTTPS', reason: `${check.reason}${hint}` };
}

/** Resolves true when every check passed; never throws for a failed check. */
export async function runWebhookCheck(url: string, options: WebhookCheckOptions = {}): Promise<boolean> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const pass = (name: string, detail: string) => (print(`ok    ${name.padEnd(22)} ${detail}`), true);
  const fail = (name: string, detail: string) => (print(`FAIL  ${name.padEnd(22)} ${detail}`), false);
  const rules = { allowLoopback: options.insecureLocalhost };
  const headers = createCliSigner(options.secret)(newWebhookId());

  const scheme = checkUrlScheme(url, options.insecureLocalhost);
  if (!scheme.ok && scheme.step === 'URL valid') return fail('URL valid', scheme.reason);
  // The last path segment may be the receiver's URL token: never printed.
  pass('URL valid', redactWebhookUrl(url));
  if (!scheme.ok) return fail('HTTPS', scheme.reason);
  const { plain } = scheme;
  pass('HTTPS', plain ? 'http:// (allowed for a loopback receiver by --insecure-localhost)' : 'https://');

  const hostname = new URL(url).hostname;
  const resolution = await resolveWebhookHost(hostname, rules);
  if (resolution.addresses.length === 0) return fail('host resolves', resolution.ok ? hostname : resolution.message);
  pass('host resolves', resolution.addresses.map((a) => `${a.address} (${a.addressClass})`).join(', '));
  if (!resolution.ok) return fail('address allowed', resolution.message);
  if (scheme.refused) return fail('address allowed', scheme.refused);
  if (plain && resolution.addresses.some((a) => a.addressClass !== 'loopback')) {
    return fail('address allowed', 'plain http:// is allowed only for a loopback receiver; use https://.');
  }
  const classes = [...new Set(resolution.addresses.map((a) => a.addressClass))].join(', ');
  pass('address allowed', options.insecureLocalhost && classes.includes('loopback') ? `${classes} (--insecure-localhost)` : classes);

  const probe = checkEvent();
  const result = withSigningAdvice(
    await deliverEvent(url, probe, { insecureLocalhost: options.insecureLocalhost, ca: options.ca, timeoutMs: options.timeoutMs, headers }),
    options.secret !== undefined,
  );
  if (plain) {
    if (!result.delivered && !result.response) return fail('answers', failureText(result));
    pass('TLS handshake', 'skipped: plain http:// on loopback (--insecure-localhost)');
  } else {
    if (!result.certificate) return fail('TLS handshake', failureText(result));
    const verified = options.insecureLocalhost && !options.ca && isLoopback(result.resolvedAddress) ? ' (not verified: --insecure-localhost)' : '';
    pass('TLS handshake', `${result.certificate.subject}, expires ${result.certificate.validTo}${verified}`);
  }
  const answers = `answers 200 in ${(options.timeoutMs ?? DELIVERY_TIMEOUT_MS) / 1000} s`;
  if (!result.delivered) return fail(answers, failureText(result));
  const signedNote = options.secret === undefined ? '' : ', signed with --secret';
  return pass(answers, `200 in ${result.durationMs} ms (${probeNote(result.response?.body, probe.event)}${signedNote})`);
}

function probeNote(body: string | undefined, event: string): string {
  try {
    if ((JSON.parse(body ?? '') as { probe?: unknown }).probe === true) return `probe ${event} acknowledged, not processed`;
  } catch {
    // Not JSON: any answer body is allowed; only the status counts.
  }
  return `probe ${event}: this receiver does not recognise it and may process it as an event`;
}

function failureText(result: DeliveryResult): string {
  return result.delivered ? '' : result.message;
}

function isLoopback(address: string | undefined): boolean {
  return address !== undefined && classifyAddress(address) === 'loopback';
}
