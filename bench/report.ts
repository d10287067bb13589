/** Renders bench results as the Markdown of BENCHMARKS.md: ratios against each group's baseline. */
import type { BenchOptions, CaseResult } from './cases.js';
import type { ClientResult } from './client-cases.js';
import type { DeliveryRow } from './delivery-cases.js';

/** Run metadata printed above the tables. */
export interface RunInfo {
  date: string;
  node: string;
  cpus: number;
  cpuModel: string;
  command: string;
}

/** The rows measured outside autocannon, and free text appended at the end. */
export interface ExtraResults {
  client?: ClientResult[];
  /**
   * The delivery group (bench/delivery-cases.ts): rows against its first, the events per row, and
   * how a drain is measured (events the instance drains first, the receiver's event it is timed from).
   */
  delivery?: { rows: DeliveryRow[]; events: number; drain: { warmEvents: number; from: number } };
  /** Markdown appended as is (the profile findings, bench/findings.md). */
  appendix?: string;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (value: number, base: number) => `${fmt(value / base, 2)}×`;

function loadGroup(group: string, rows: CaseResult[]): string[] {
  const extra = [...new Set(rows.flatMap((r) => r.compareWith ?? []))].filter((n) => rows.some((r) => r.name === n));
  const cpu = rows.every((r) => r.result.cpuMicrosPerRequest !== undefined);
  // With the servers' own CPU measured, ratios compare CPU per request (capacity): baseline µs / case µs.
  const by = (name: string) => rows.find((b) => b.name === name)?.result;
  const rel = (r: CaseResult, name: string) => {
    const base = by(name);
    if (!base) return 'n/a';
    return cpu ? ratio(base.cpuMicrosPerRequest!, r.result.cpuMicrosPerRequest!) : ratio(r.result.requestsPerSec, base.requestsPerSec);
  };
  const head = [
    'case',
    'req/s',
    ...(cpu ? ['µs CPU/req', '× baseline (CPU)'] : ['× baseline']),
    ...extra.map((n) => `× ${n.split(',')[0]}${cpu ? ' (CPU)' : ''}`),
    ...(cpu ? ['× baseline (req/s)'] : []),
    'p50 ms',
    'p99 ms',
    'max ms',
    'non-2xx',
    'errors',
  ];
  const lines = [
    `## ${group}`,
    '',
    `| ${head.join(' | ')} |`,
    `|---|${head
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  ];
  for (const r of rows) {
    const { requestsPerSec, p50Ms, p99Ms, maxMs, non2xx, errors, cpuMicrosPerRequest } = r.result;
    const isBase = r.name === r.baseline;
    const cells = [
      r.name,
      fmt(requestsPerSec),
      ...(cpu ? [fmt(cpuMicrosPerRequest!)] : []),
      isBase ? 'baseline' : rel(r, r.baseline),
      ...extra.map((n) => (n === r.name ? '—' : rel(r, n))),
      ...(cpu ? [isBase ? 'baseline' : ratio(requestsPerSec, by(r.baseline)?.requestsPerSec ?? NaN)] : []),
      fmt(p50Ms),
      fmt(p99Ms),
      fmt(maxMs),
      fmt(non2xx),
      fmt(errors),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
  return lines;
}

/** The delivery section of BENCHMARKS.md. */
function deliverySection({ rows, events, drain }: NonNullable<ExtraResults['delivery']>): string[] {
  const base = rows[0]?.rate ?? NaN;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    '## delivery',
    '',
    `Webhook deliveries to one HTTPS receiver on loopback (its own process), ${events.toLocaleString('en-US')} events in each of the`,
    'baseline, steady, burst and two-instance rows. An instance is a Redis delivery engine in its own process at the default',
    '`WEBHOOK_CONCURRENCY` that takes the events as resumes hand them over (`enqueue`) and delivers them; two instances share the',
    "events. The burst's events are queued first and come due at the same moment, as retries do after an outage. A backlog is",
    'queued while no instance takes any (the queue paused, as if the receiver were unreachable), then one instance drains it while',
    "another process enqueues a fresh event every 250 ms; their latency is from the event's timestamp to its arrival at the receiver.",
    "The baseline is plain `fetch` (Node's own, kept connections) with 50 POSTs in flight to the same receiver; ratios are events/s",
    `against it. Every drain is measured the same way: one instance drains ${drain.warmEvents.toLocaleString('en-US')} events first (a fresh process spends its first`,
    'seconds compiling, which would weigh on a short drain more than on a long one), then the smaller backlog, the larger one and the',
    'smaller one again (its figures are the mean of the two, so that a drift of the box weighs on both sizes alike); the receiver',
    `times each drain from its ${drain.from.toLocaleString('en-US')}th event to its last, and CPU per event is the instance's own CPU time over the same events`,
    '(a busy moment on a shared box moves it less than the rate).',
    '',
    '| case | events/s | × baseline | |',
    '|---|---:|---:|---|',
    ...rows.map((r, i) => `| ${r.name} | ${fmt(r.rate)} | ${i === 0 ? 'baseline' : `${(r.rate / base).toFixed(2)}×`} | ${r.note ?? ''} |`),
    '',
  ];
}

function clientGroups(rows: ClientResult[]): string[] {
  const lines: string[] = [];
  for (const group of [...new Set(rows.map((r) => r.group))]) {
    const inGroup = rows.filter((r) => r.group === group);
    lines.push(`## ${group}`, '', '| variant | calls/s | µs CPU/call | × plain fetch (CPU) | × plain fetch (calls/s) |', '|---|---:|---:|---:|---:|');
    for (const r of inGroup) {
      const base = inGroup.find((b) => b.name === r.baseline);
      const isBase = r.name === r.baseline;
      const cpu = isBase ? 'baseline' : ratio(base?.cpuMicrosPerCall ?? NaN, r.cpuMicrosPerCall);
      const rate = isBase ? 'baseline' : ratio(r.callsPerSec, base?.callsPerSec ?? NaN);
      lines.push(`| ${r.name} | ${fmt(r.callsPerSec)} | ${fmt(r.cpuMicrosPerCall)} | ${cpu} | ${rate} |`);
    }
    lines.push('', "The client process's own CPU per call (the server is another process): × (CPU) is plain fetch's µs ÷ the variant's.");
    lines.push('');
  }
  return lines;
}

/** The whole BENCHMARKS.md text. */
export function renderReport(results: CaseResult[], options: Omit<BenchOptions, 'redisUrl'>, info: RunInfo, extra: ExtraResults = {}): string {
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`${info.command}\` on ${info.date} (Node ${info.node}, ${info.cpus} × ${info.cpuModel}).`,
    `Each load case: a fresh server on 127.0.0.1, 1 s warm-up, then the best of ${options.rounds ?? 1} loads of ${options.durationS} s by autocannon with ${options.connections} connections`,
    "(the resume group's servers all run at once and take turns, round after round); a private redis-server (no persistence)",
    `for the Redis cases. The load generator runs on the same ${info.cpus} cores as the servers, so absolute numbers`,
    'move from run to run: **only the ratios against the baseline of the same run are claims.** No test asserts a timing.',
    '',
    "The resume and growth servers run in their own processes and report their own CPU time: **µs CPU/req** is the server's",
    "CPU per request, counted from idle to idle (a receiver's worker still processing what the load acknowledged counts too),",
    'and the × (CPU) ratios compare it (baseline µs ÷ case µs: what the same cores can serve). On a box shared',
    'with other work it moves far less than req/s, which depends on how much of the cores the server got; both are shown.',
    '',
  ];
  for (const group of [...new Set(results.map((r) => r.group))]) {
    lines.push(
      ...loadGroup(
        group,
        results.filter((r) => r.group === group),
      ),
    );
    const fills = results
      .filter((r) => r.group === group && r.prepareSeconds !== undefined)
      .map((r) => `${r.name.replace(/^.*Redis, /, '')}: ${fmt(r.prepareSeconds!, 1)} s`);
    if (group === 'growth') {
      if (fills.length)
        lines.push(
          `Every growth request asks for another of the seeded sessions (all running: 409). Pipelined fill of Redis before each row: ${fills.join('; ')}.`,
          '',
        );
    }
  }
  const acks = results.filter((r) => r.group === 'webhook ack' && r.name.startsWith('receiver'));
  if (acks.length) {
    const worst = Math.max(...acks.map((r) => r.result.maxMs));
    lines.push(
      "## Against the source's 5 s budget",
      '',
      `The slowest acknowledgement of any receiver case was ${fmt(worst)} ms under full load, ` +
        `${fmt((worst / 5000) * 100, 1)} % of the 5 s a receiver has to answer.`,
      '',
    );
  }
  lines.push(...clientGroups(extra.client ?? []));
  if (extra.delivery) lines.push(...deliverySection(extra.delivery));
  lines.push(
    'Non-2xx in the resume and growth groups are the expected 409 not_paused answers (the steady state: auth, request validation,',
    'the store call and, when on, response validation all run). Read the ratios as the cost of enforcing the contract at runtime',
    '(reference server vs bare express) and of recording durably before the 200 (receiver vs bare node:http).',
    '',
  );
  if (extra.appendix) lines.push(extra.appendix.trim(), '');
  return lines.join('\n');
}
