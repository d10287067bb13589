/**
 * Flame summary of a V8 `.cpuprofile` (from `node --cpu-prof`): the top self-time frames and
 * self time per package. `tsx bench/profile-summary.ts <file.cpuprofile> [top=25]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package name, "ours", "node:" or the V8 pseudo-frame. */
export function packageOf(url: string): string {
  if (!url) return '(v8)';
  if (url.startsWith('node:')) return 'node:internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return m?.[1] ?? 'ours';
}

/**
 * Self time (ms) per frame and per package, largest first; with `lastMs`, only the samples of
 * the profile's last `lastMs` (the load, not the start-up).
 */
export function summarise(profile: Profile, lastMs = Infinity): { total: number; frames: [string, number][]; packages: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const from = profile.endTime - lastMs * 1000;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= from) self.set(id, (self.get(id) ?? 0) + delta / 1000);
  });
  const frames = new Map<string, number>();
  const packages = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    total += ms;
    const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/perf\//, '');
    const key = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
    frames.set(key, (frames.get(key) ?? 0) + ms);
    const pkg = packageOf(url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
  }
  const sort = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, frames: sort(frames), packages: sort(packages) };
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [file, top = '25', lastMs] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [lastMs]');
  const { total, frames, packages } = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, lastMs ? Number(lastMs) : Infinity);
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)} %`;
  process.stdout.write(`busy ${total.toFixed(0)} ms\n\nby package:\n`);
  for (const [p, ms] of packages.slice(0, 15)) process.stdout.write(`${pct(ms)}  ${p}\n`);
  process.stdout.write('\ntop self-time frames:\n');
  for (const [f, ms] of frames.slice(0, Number(top))) process.stdout.write(`${pct(ms)}  ${f}\n`);
}
