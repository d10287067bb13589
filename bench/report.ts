/** Renders bench results as the Markdown of BENCHMARKS.md: ratios against each group's baseline. */
import type { BenchOptions, CaseResult } from './cases.js';

/** Run metadata printed above the tables. */
export interface RunInfo {
  date: string;
  node: string;
  cpus: number;
  cpuModel: string;
  command: string;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The whole BENCHMARKS.md text. */
export function renderReport(results: CaseResult[], options: Omit<BenchOptions, 'redisUrl'>, info: RunInfo): string {
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`${info.command}\` on ${info.date} (Node ${info.node}, ${info.cpus} × ${info.cpuModel}).`,
    `Each case: a fresh server on 127.0.0.1, 1 s warm-up, then ${options.durationS} s of autocannon load with ${options.connections} connections;`,
    'a private redis-server (no persistence) for the Redis cases. The machine is a shared 2-core box and the load generator',
    'runs on the same cores, so absolute numbers move from run to run: **only the ratios against the baseline of the same run',
    'are claims.** No test asserts a timing.',
    '',
  ];
  for (const group of [...new Set(results.map((r) => r.group))]) {
    const rows = results.filter((r) => r.group === group);
    lines.push(`## ${group}`, '', '| case | req/s | × baseline | p50 ms | p99 ms | max ms | non-2xx | errors |', '|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const base = rows.find((b) => b.name === r.baseline)?.result.requestsPerSec ?? NaN;
      const ratio = r.name === r.baseline ? 'baseline' : `${fmt(r.result.requestsPerSec / base, 2)}×`;
      const { requestsPerSec, p50Ms, p99Ms, maxMs, non2xx, errors } = r.result;
      lines.push(`| ${r.name} | ${fmt(requestsPerSec)} | ${ratio} | ${fmt(p50Ms)} | ${fmt(p99Ms)} | ${fmt(maxMs)} | ${fmt(non2xx)} | ${fmt(errors)} |`);
    }
    lines.push('');
  }
  const acks = results.filter((r) => r.group === 'webhook ack' && r.name.startsWith('receiver'));
  if (acks.length) {
    const worst = Math.max(...acks.map((r) => r.result.maxMs));
    lines.push(
      '## Against the source\'s 5 s budget',
      '',
      `The slowest acknowledgement of any receiver case was ${fmt(worst)} ms under full load, ` +
        `${fmt((worst / 5000) * 100, 1)} % of the 5 s a receiver has (source spec §6 rule 2).`,
      '',
    );
  }
  lines.push(
    'Non-2xx in the resume group are the expected 409 not_paused answers (the steady state: auth, request validation,',
    'the store call and response validation all run). Read the ratios as the cost of enforcing the contract at runtime',
    '(reference server vs bare express) and of recording durably before the 200 (receiver vs bare node:http).',
    '',
  );
  return lines.join('\n');
}
