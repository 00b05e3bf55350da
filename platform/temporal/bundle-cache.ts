/**
 * A workflow bundle reused across worker starts while the code it is built from is unchanged, so a
 * restart polls in about a second instead of spending ~10 s in webpack. The key hashes the content
 * of every file the workflows entry reaches through relative value imports (the files webpack puts
 * into the bundle: `import type` / `export type` statements are erased before bundling, so the
 * domain types they reach cannot change the bundle), the bundler options and the installed
 * dependency versions (package-lock.json, the SDK version). About 25 files: hashing takes
 * milliseconds. The replay test checks that this walk covers every module of a real bundle.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
/** Bundles of other keys kept next to the current one (a rollback reuses its own). */
const KEEP_OTHERS = 3;

// `import … from './x'`, `export … from './x'`, `import './x'`, `import('./x')`, `require('./x')`.
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveSource(fromFile: string, spec: string): string | null {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.js`, path.join(base, 'index.ts'), path.join(base, 'index.js')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

// The keyword of the statement a `from '…'` belongs to, when that statement imports or exports types only.
const TYPE_ONLY_STATEMENT = /\b(?:import|export)\s+type\s+(?!from\b)[\w*{]/;
const STATEMENT_KEYWORD = /\b(?:import|export)\b/g;

/** Whether the `from '…'` at `at` ends an `import type …` / `export type …` statement. */
function typeOnly(text: string, at: number, matched: string): boolean {
  if (!matched.startsWith('from')) return false;
  const before = text.slice(Math.max(0, at - 4000), at);
  let last = -1;
  for (const k of before.matchAll(STATEMENT_KEYWORD)) last = k.index;
  return last >= 0 && TYPE_ONLY_STATEMENT.test(before.slice(last));
}

/**
 * The entry and every local file it reaches by relative imports, sorted. `valueOnly` (the default)
 * skips type-only statements, as the bundler does; `false` follows them too.
 */
export function workflowSourceFiles(entry: string, valueOnly = true): string[] {
  const seen = new Set<string>();
  const queue = [path.resolve(entry)];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(RELATIVE_IMPORT)) {
      if (valueOnly && typeOnly(text, m.index, m[0])) continue;
      const target = resolveSource(file, m[1]!);
      if (target && !seen.has(target)) queue.push(target);
    }
  }
  return [...seen].sort();
}

export interface BundleKeyInput {
  entry: string;
  /** Anything else that changes the output (bundler options). */
  options: unknown;
  /** Files of the installed dependencies (default: package-lock.json and the SDK's package.json). */
  depFiles?: string[];
}

const DEFAULT_DEP_FILES = (): string[] =>
  [path.join(ROOT, 'package-lock.json'), require.resolve('@temporalio/worker/package.json')].filter((f) =>
    existsSync(f),
  );

export function workflowBundleKey(input: BundleKeyInput): string {
  const hash = createHash('sha256');
  hash.update(`node-major ${process.versions.node.split('.')[0]}\n`);
  hash.update(`options ${JSON.stringify(input.options)}\n`);
  for (const file of [...workflowSourceFiles(input.entry), ...(input.depFiles ?? DEFAULT_DEP_FILES())]) {
    hash.update(`file ${path.relative(ROOT, file)}\n`);
    hash.update(readFileSync(file));
    hash.update('\n');
  }
  return hash.digest('hex').slice(0, 32);
}

/** TEMPORAL_BUNDLE_CACHE_DIR, else `.data/workflow-bundles` in the project, else the temp dir. */
export function defaultBundleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEMPORAL_BUNDLE_CACHE_DIR?.trim() || path.join(ROOT, '.data', 'workflow-bundles');
}

export interface CachedBundleOptions extends BundleKeyInput {
  cacheDir: string;
  /** Builds the bundle into `out` (bin/bundle-workflows.ts in a child). */
  build(out: string): Promise<void>;
}

function usableDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true });
    return dir;
  } catch {
    const fallback = path.join(os.tmpdir(), 'crm-workflow-bundles');
    mkdirSync(fallback, { recursive: true });
    return fallback;
  }
}

/** The bundle file for the current code: reused when present, else built (atomically: tmp + rename). */
export async function cachedWorkflowBundle(
  opts: CachedBundleOptions,
): Promise<{ codePath: string; hit: boolean; key: string }> {
  const key = workflowBundleKey(opts);
  const dir = usableDir(opts.cacheDir);
  const codePath = path.join(dir, `workflows-${key}.js`);
  if (existsSync(codePath) && statSync(codePath).size > 0) return { codePath, hit: true, key };
  const tmp = `${codePath}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    await opts.build(tmp);
    renameSync(tmp, codePath);
  } finally {
    rmSync(tmp, { force: true });
  }
  pruneOthers(dir, codePath);
  return { codePath, hit: false, key };
}

function pruneOthers(dir: string, current: string): void {
  const others = readdirSync(dir)
    .filter((f) => /^workflows-[0-9a-f]+\.js$/.test(f) && path.join(dir, f) !== current)
    .map((f) => ({ file: path.join(dir, f), at: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of others.slice(KEEP_OTHERS)) rmSync(old.file, { force: true });
}
