/**
 * The precompiled worker `npm start` runs (infra/worker-build.ts): one file that loads with plain
 * node (every package resolves from the project's node_modules), keeps each source file's own
 * directory for the paths computed from `__dirname`, and is reused when the code is unchanged.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildWorkerEntry, workerNodeArgs } from '../../../infra/worker-build';
import { repoRoot } from '../../../infra/paths';

let outDir: string;
beforeAll(() => {
  // Inside the project, as the real build directory: packages resolve from its node_modules.
  const dataDir = path.join(repoRoot, '.data');
  mkdirSync(dataDir, { recursive: true });
  outDir = mkdtempSync(path.join(dataDir, 'test-worker-build-'));
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it('compiles bin/worker.ts into one file that loads with plain node and keeps every file its own __dirname', async () => {
  const first = await buildWorkerEntry(outDir);
  expect(first.written).toBe(true);
  expect(path.dirname(path.dirname(first.file))).toBe(outDir);
  expect(readdirSync(path.dirname(first.file)).sort()).toEqual(['worker.cjs', 'worker.cjs.map']);

  const code = readFileSync(first.file, 'utf8');
  // temporal/bundle-options.ts: WORKFLOWS_PATH is computed from its own directory, not the build's.
  expect(code).toContain(`= ${JSON.stringify(path.join(repoRoot, 'platform/temporal'))};`);
  expect(code).toContain(`= ${JSON.stringify(path.join(repoRoot, 'platform/orm'))};`);
  expect(code).not.toMatch(/require\.resolve\(["']\.\.?\//);

  // Loaded as a module (main() runs only as the entry): every import resolves, no module-level error.
  const loaded = execFileSync(
    process.execPath,
    ['-e', `const w = require(${JSON.stringify(first.file)}); process.stdout.write(typeof w.startTemporalWorker)`],
    { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' },
  );
  expect(loaded).toBe('function');
  expect(workerNodeArgs(first)).toEqual([first.file]);
  expect(workerNodeArgs(null)).toEqual(['--import', 'tsx', path.join(repoRoot, 'bin/worker.ts')]);

  // Same code: the same file, not written again.
  const again = await buildWorkerEntry(outDir);
  expect(again).toMatchObject({ file: first.file, written: false });
}, 60_000);
