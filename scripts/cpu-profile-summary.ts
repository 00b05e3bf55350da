// Summarises V8 CPU profiles (.cpuprofile, as written by `node --cpu-prof` or the benches'
// BENCH_CPU_PROF=1): self time by function and by package or file, so a profile can be read
// without a browser. `npx tsx scripts/cpu-profile-summary.ts <file.cpuprofile> [--top N] [--since S]`
// (--since: leave out the first S seconds, e.g. a process's start-up).
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The package (node_modules/<pkg>) or repository file of a frame, or what V8 calls it. */
function where(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = file.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (file.startsWith('node:')) return file;
  return path.relative(process.cwd(), file);
}

function summarise(file: string, top: number, sinceS: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFn = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if ((t - profile.startTime) / 1e6 < sinceS) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    const place = where(url, functionName);
    const fn = `${functionName || '(anonymous)'} ${place}${url ? `:${lineNumber + 1}` : ''}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + dt);
    byPlace.set(place, (byPlace.get(place) ?? 0) + dt);
    total += dt;
  }
  const show = (title: string, m: Map<string, number>): void => {
    process.stdout.write(`${title}\n`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
      process.stdout.write(
        `  ${(v / 1000).toFixed(0).padStart(7)} ms ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`,
      );
  };
  process.stdout.write(
    `${file}: ${(total / 1000).toFixed(0)} ms busy (idle left out) of ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s\n`,
  );
  show('self time by package or file:', byPlace);
  show('self time by function:', byFn);
}

// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', () => process.exit(0));
const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
const top = opt('--top', 40);
const since = opt('--since', 0);
if (!args.length) {
  process.stderr.write('usage: tsx scripts/cpu-profile-summary.ts <file.cpuprofile>… [--top N] [--since S]\n');
  process.exit(2);
}
for (const f of args) summarise(f, top, since);
