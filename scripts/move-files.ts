// `npx tsx scripts/move-files.ts <old> <new> [<old> <new> …]`: moves files (git mv) and rewrites every
// relative import specifier in the repository that pointed at a moved file or sits in a moved file
// (static and dynamic imports, export … from, require, jest.mock). A directory as <old> moves all its files.
// Used for the moves of issue 25 (one folder per feature), one module per commit. Paths in configs and docs
// (eslint, dependency-cruiser, jest, package.json, markdown) are listed at the end for a manual look.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const rel = (abs: string): string => path.relative(root, abs).split(path.sep).join('/');
const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  process.stderr.write('usage: tsx scripts/move-files.ts <old> <new> [<old> <new> …]\n');
  process.exit(2);
}
const tracked = git('ls-files').split('\n').filter(Boolean);
/** Moved files: absolute old path → absolute new path. */
const moves = new Map<string, string>();
for (let i = 0; i < args.length; i += 2) {
  const from = path.resolve(root, args[i]!);
  const to = path.resolve(root, args[i + 1]!);
  if (existsSync(from) && statSync(from).isDirectory()) {
    for (const f of tracked.map((t) => path.join(root, t)).filter((t) => t.startsWith(from + path.sep)))
      moves.set(f, path.join(to, path.relative(from, f)));
  } else if (existsSync(from)) moves.set(from, to);
  else throw new Error(`${args[i]} does not exist`);
}
for (const to of moves.values()) if (existsSync(to)) throw new Error(`${rel(to)} exists already`);

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const SPEC =
  /(\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bjest\.(?:mock|requireActual)\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]*)\2/gm;
const EXTS = ['', '.ts', '.mts', '.js', '.cjs', '.mjs', '.json', '/index.ts'];

/** The file a relative specifier of `fromFile` resolves to (before the move), or null. */
function resolveSpec(fromFile: string, spec: string): { target: string; suffix: string } | null {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const ext of EXTS) {
    const cand = base + ext;
    if (existsSync(cand) && statSync(cand).isFile()) return { target: cand, suffix: ext };
  }
  // `./x.js` written for `./x.ts`
  if (/\.js$/.test(base) && existsSync(base.replace(/\.js$/, '.ts')))
    return { target: base.replace(/\.js$/, '.ts'), suffix: '' };
  return null;
}

function newSpec(newFrom: string, newTarget: string, oldSpec: string, suffix: string): string {
  let target = newTarget;
  if (suffix === '/index.ts') target = path.dirname(newTarget);
  else if (suffix) target = newTarget.slice(0, -suffix.length);
  else if (/\.js$/.test(oldSpec) && newTarget.endsWith('.ts')) target = newTarget.replace(/\.ts$/, '.js');
  let s = path.relative(path.dirname(newFrom), target).split(path.sep).join('/');
  if (!s.startsWith('.')) s = `./${s}`;
  return s;
}

let rewritten = 0;
const edits = new Map<string, string>();
for (const t of tracked.filter((f) => CODE.test(f) && !f.startsWith('node_modules/'))) {
  const file = path.join(root, t);
  if (!existsSync(file)) continue;
  const src = readFileSync(file, 'utf8');
  const newFile = moves.get(file) ?? file;
  const out = src.replace(SPEC, (whole, lead: string, q: string, spec: string) => {
    const r = resolveSpec(file, spec);
    if (!r) return whole;
    const newTarget = moves.get(r.target) ?? r.target;
    if (newTarget === r.target && newFile === file) return whole;
    const s = newSpec(newFile, newTarget, spec, r.suffix);
    if (s === spec) return whole;
    rewritten++;
    return `${lead}${q}${s}${q}`;
  });
  if (out !== src) edits.set(file, out);
}
for (const [from, to] of moves) {
  mkdirSync(path.dirname(to), { recursive: true });
  git('mv', rel(from), rel(to));
}
for (const [file, out] of edits) writeFileSync(moves.get(file) ?? file, out);
process.stdout.write(`moved ${moves.size} files, rewrote ${rewritten} specifiers in ${edits.size} files\n`);

// Mentions of the old paths outside import specifiers (configs, docs, tests that read files): for a manual look.
const olds = [...moves.keys()].map((f) => rel(f).replace(/\.ts$/, ''));
const hits = new Set<string>();
for (const t of git('ls-files').split('\n').filter(Boolean)) {
  const file = path.join(root, t);
  if (!existsSync(file) || /^(node_modules|sdk)\//.test(t) || statSync(file).size > 2_000_000) continue;
  const src = readFileSync(file, 'utf8');
  for (const o of olds) if (src.includes(o)) hits.add(`${t}: ${o}`);
}
if (hits.size) process.stdout.write(`old paths still mentioned (check by hand):\n  ${[...hits].join('\n  ')}\n`);
