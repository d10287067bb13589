/**
 * The resume path in CPU instructions per request: each server started as bench/as-started.ts
 * starts it (the card's stack, `npm start`'s server, and any other build given), but under
 * valgrind's callgrind, which counts the instructions the process executes (every thread: JIT,
 * GC and the main one) whatever else the machine is doing. Time on a shared 2-core box moves
 * with the neighbours; this count does not, so a change of a few per cent shows here first. It
 * leaves out what the kernel does for the process (the writes) and what a cache miss costs.
 *
 * Per server: `WARM` resumes to warm it up (the JIT's tiers), then callgrind's instrumentation is
 * switched on (`callgrind_control -i on`) for `COUNT` resumes by autocannon on 4 connections and off
 * again; instructions ÷ `COUNT`. Needs valgrind (Debian's package). About a minute per server.
 *
 *   tsx bench/instructions.ts [label=path/to/server/dist/main.js …]   (BENCH_WARM 5000, BENCH_COUNT 2000)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad } from './run-case.js';
import { CARD_STACK, NPM_START, RESUME_HEADERS, THIS_BUILD, resumeUrlOf, startCardStack, startNpmStart, stop, type Started } from './as-started.js';

/** One server's count. */
export interface InstructionsRow {
  name: string;
  instructionsPerRequest: number;
}

/** `count` resumes on 4 connections; rejects on any answer but 409 (the steady state). */
async function resumes(target: Started, count: number): Promise<void> {
  const result = await runLoad({ url: resumeUrlOf(target), method: 'POST', headers: RESUME_HEADERS, connections: 4, amount: count });
  const unexpected = result.requests - result.non2xx + result.errors + result.timeouts;
  if (unexpected > 0) throw new Error(`bench/instructions: ${target.name} gave ${unexpected} answers that were not 409`);
}

/** The instructions of the run counted in callgrind's output file (its `totals:` line). */
function totalInstructions(file: string): number {
  const totals = /^totals:\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!totals) throw new Error(`bench/instructions: no totals in ${file}`);
  return Number(totals[1]);
}

/** Counts one server, started by `start` under callgrind with its instrumentation off. */
async function countInstructions(start: (launcher: string[]) => Promise<Started>, options: { warm: number; count: number }): Promise<InstructionsRow> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
  const file = join(dir, 'callgrind.out');
  const target = await start(['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${file}`]);
  try {
    await resumes(target, options.warm);
    execFileSync('callgrind_control', ['-i', 'on', String(target.child.pid)], { stdio: 'ignore' });
    await resumes(target, options.count);
    execFileSync('callgrind_control', ['-i', 'off', String(target.child.pid)], { stdio: 'ignore' });
  } finally {
    await stop(target);
  }
  try {
    return { name: target.name, instructionsPerRequest: totalInstructions(file) / options.count };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The card's stack, this tree's server and each other build, one after another. */
export async function runInstructions(options: {
  warm: number;
  count: number;
  others?: ReadonlyArray<{ label: string; main: string }>;
}): Promise<InstructionsRow[]> {
  const rows = [
    await countInstructions((launcher) => startCardStack([], launcher), options),
    await countInstructions((launcher) => startNpmStart(NPM_START, THIS_BUILD, [], {}, launcher), options),
  ];
  for (const other of options.others ?? []) rows.push(await countInstructions((launcher) => startNpmStart(other.label, other.main, [], {}, launcher), options));
  return rows;
}

/** The rows as a Markdown table, with each server's ratio to the card's stack (its count ÷ the row's: above 1 is fewer instructions). */
export function renderInstructions(rows: InstructionsRow[], options: { warm: number; count: number }): string {
  const base = rows.find((row) => row.name === CARD_STACK)!;
  const lines = [
    `Instructions per resume under callgrind, counted over ${options.count} resumes after ${options.warm} to warm up (bench/instructions.ts).`,
    '',
    '| case | instructions per request | × card |',
    '|---|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${Math.round(row.instructionsPerRequest).toLocaleString('en-US')} | ${row === base ? 'baseline' : `${(base.instructionsPerRequest / row.instructionsPerRequest).toFixed(3)}×`} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const whole = (name: string, fallback: number) => {
    const n = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(n) || n < 100 || n > 1_000_000) throw new Error(`${name} must be a whole number from 100 to 1,000,000.`);
    return n;
  };
  const others = process.argv.slice(2).map((arg) => {
    const at = arg.indexOf('=');
    if (at < 1 || at === arg.length - 1) throw new Error(`usage: instructions.ts [label=path/to/server/dist/main.js …], got "${arg}"`);
    return { label: arg.slice(0, at), main: arg.slice(at + 1) };
  });
  const options = { warm: whole('BENCH_WARM', 5000), count: whole('BENCH_COUNT', 2000), others };
  process.stdout.write(renderInstructions(await runInstructions(options), options));
}
