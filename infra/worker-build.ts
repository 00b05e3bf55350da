/**
 * The worker as `npm start` runs it: bin/worker.ts and every project module it imports compiled by
 * esbuild into one CommonJS file (packages stay in node_modules), run by plain `node`. Loading the
 * same code through tsx costs about twice the CPU (tsx's resolve and load hooks on every module,
 * node_modules included), which was most of a worker restart once the workflow bundle is cached.
 *
 * The build takes a fraction of a second (esbuild, in the parent: `npm start` overlaps it with the
 * services' start) and is written to `.data/worker-build/<hash of the output>/worker.cjs` with its
 * source map, so concurrent starts of different code never share a file. It lives inside the
 * project so that the packages resolve from its node_modules. Each project file keeps its own
 * `__dirname`/`__filename` (paths to workflows/, migrations/, the repository root).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { repoRoot } from './paths';

export const WORKER_SOURCE = 'bin/worker.ts';
export const WORKER_BUILD_DIR = path.join(repoRoot, '.data', 'worker-build');
/** Builds of other code kept next to the current one (a rollback, another checkout's start). */
const KEEP_OTHERS = 3;
const OUT_NAME = 'worker.cjs';

/** Injects the file's own `__dirname`/`__filename` (same line: stack traces keep their line numbers). */
const sourcePaths: Plugin = {
  name: 'source-paths',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.split(path.sep).includes('node_modules')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const header = [
        /\b__dirname\b/.test(text) ? `const __dirname = ${JSON.stringify(path.dirname(args.path))};` : '',
        /\b__filename\b/.test(text) ? `const __filename = ${JSON.stringify(args.path)};` : '',
      ].join('');
      return { contents: header + text, loader: 'ts' };
    });
  },
};

export interface WorkerBuild {
  /** The compiled entry (run it with `node <file>`). */
  file: string;
  ms: number;
  /** False when an identical build was already there. */
  written: boolean;
}

/** Compiles bin/worker.ts (see the file comment); throws when esbuild fails. */
export async function buildWorkerEntry(outDir: string = WORKER_BUILD_DIR): Promise<WorkerBuild> {
  const started = performance.now();
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: [path.join(repoRoot, WORKER_SOURCE)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    // Functions and classes renamed to avoid clashes between files keep their `.name` (error names, logs).
    keepNames: true,
    // The hash directory is one level below outDir: the map's relative source paths stay right.
    outfile: path.join(outDir, 'current', OUT_NAME),
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
    plugins: [sourcePaths],
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.cjs'))!;
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))!;
  const hash = createHash('sha256').update(code.contents).update(map.contents).digest('hex').slice(0, 16);
  const dir = path.join(outDir, hash);
  const file = path.join(dir, OUT_NAME);
  let written = false;
  if (existsSync(file)) {
    const now = new Date();
    utimesSync(dir, now, now);
  } else {
    mkdirSync(outDir, { recursive: true });
    const tmp = `${dir}.${process.pid}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    await writeFile(path.join(tmp, OUT_NAME), code.contents);
    await writeFile(path.join(tmp, `${OUT_NAME}.map`), map.contents);
    try {
      renameSync(tmp, dir);
      written = true;
    } catch (err) {
      // Another start wrote the same build first.
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(file)) throw err;
    }
  }
  pruneOthers(outDir, hash);
  return { file, ms: Math.round(performance.now() - started), written };
}

function pruneOthers(outDir: string, current: string): void {
  const others = readdirSync(outDir)
    .filter((d) => /^[0-9a-f]{16}$/.test(d) && d !== current)
    .map((d) => ({ dir: path.join(outDir, d), at: statSync(path.join(outDir, d)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of others.slice(KEEP_OTHERS)) rmSync(old.dir, { recursive: true, force: true });
}

/** Node arguments that run the worker: the compiled entry, or bin/worker.ts through tsx when there is none. */
export function workerNodeArgs(build: WorkerBuild | null): string[] {
  // Without --enable-source-maps (~15% more load time): stack traces name worker.cjs lines (unminified
  // code, same function names); NODE_OPTIONS=--enable-source-maps maps them to the .ts files via worker.cjs.map.
  return build ? [build.file] : ['--import', 'tsx', path.join(repoRoot, WORKER_SOURCE)];
}
