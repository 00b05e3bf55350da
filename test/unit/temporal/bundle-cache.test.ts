/**
 * The worker's workflow bundle cache: the same code reuses the built bundle (no webpack at start),
 * any change to a file the workflows reach (or to the dependencies) builds a new one.
 */
import {
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
  existsSync,
  readdirSync,
  statSync,
  utimesSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WORKFLOWS_PATH } from '../../../platform/temporal/bundle-options';
import { cachedWorkflowBundle, workflowSourceFiles } from '../../../platform/temporal/bundle-cache';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-cache-'));
  mkdirSync(path.join(dir, 'src/wf'), { recursive: true });
  mkdirSync(path.join(dir, 'src/lib'), { recursive: true });
  writeFileSync(path.join(dir, 'src/wf/index.ts'), `export * from './a.workflow';\n`);
  writeFileSync(
    path.join(dir, 'src/wf/a.workflow.ts'),
    `import { condition } from '@temporalio/workflow';\nimport type { X } from '../lib/types';\nimport { f } from '../lib/pure';\nexport const a = 1;\n`,
  );
  writeFileSync(path.join(dir, 'src/lib/pure.ts'), `export const f = () => 1;\n`);
  writeFileSync(path.join(dir, 'src/lib/types.ts'), `export type X = string;\n`);
  writeFileSync(path.join(dir, 'src/lib/unrelated.ts'), `export const u = 1;\n`);
  writeFileSync(path.join(dir, 'deps.lock'), `{"v":1}\n`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function harness() {
  const builds: string[] = [];
  const get = () =>
    cachedWorkflowBundle({
      entry: path.join(dir, 'src/wf/index.ts'),
      options: { preloadModules: ['x'] },
      depFiles: [path.join(dir, 'deps.lock')],
      cacheDir: path.join(dir, 'cache'),
      build: async (out) => {
        builds.push(out);
        writeFileSync(out, `/* bundle ${builds.length} */`);
      },
    });
  return { builds, get };
}

it('walks relative value imports from the entry (type-only ones on request) and ignores unrelated files and packages', () => {
  const walk = (valueOnly: boolean) =>
    workflowSourceFiles(path.join(dir, 'src/wf/index.ts'), valueOnly).map((f) => path.relative(dir, f));
  expect(walk(true)).toEqual(['src/lib/pure.ts', 'src/wf/a.workflow.ts', 'src/wf/index.ts']);
  expect(walk(false)).toEqual(['src/lib/pure.ts', 'src/lib/types.ts', 'src/wf/a.workflow.ts', 'src/wf/index.ts']);
});

it('tells type-only statements from value imports in every form the bundler keeps', () => {
  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 't1', 't2', 't3'];
  for (const n of names) writeFileSync(path.join(dir, `src/lib/${n}.ts`), `export const ${n} = 1;\n`);
  writeFileSync(
    path.join(dir, 'src/wf/index.ts'),
    [
      `import type { T1 } from '../lib/t1';`,
      `export type { T2 } from '../lib/t2';`,
      `import type * as T3 from '../lib/t3';`,
      `import {\n  a,\n  // a comment\n} from '../lib/a';`,
      `import type from '../lib/b'; // a default import named "type"`,
      `import { type X, c } from '../lib/c';`,
      `export * from '../lib/d';`,
      `import '../lib/e';`,
      `const f = () => import('../lib/f');`,
      `export { g } from "../lib/g";`,
      `import type { Y } from '../lib/t1'; import { h } from '../lib/h';`,
    ].join('\n'),
  );
  const files = workflowSourceFiles(path.join(dir, 'src/wf/index.ts')).map((f) => path.basename(f, '.ts'));
  expect(files.sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'index']);
});

it('never serves a stale bundle: an edit to any file the workflows reach is built, even with size and mtime kept', async () => {
  // The "bundle" is the reached sources themselves, so a stale one shows.
  const entry = path.join(dir, 'src/wf/index.ts');
  const get = () =>
    cachedWorkflowBundle({
      entry,
      options: {},
      depFiles: [path.join(dir, 'deps.lock')],
      cacheDir: path.join(dir, 'cache'),
      build: async (out) =>
        writeFileSync(
          out,
          workflowSourceFiles(entry)
            .map((f) => readFileSync(f, 'utf8'))
            .join('\n'),
        ),
    });
  expect((await get()).hit).toBe(false);
  for (const file of workflowSourceFiles(entry)) {
    const before = statSync(file);
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(/;\n$/, ' \n'); // same length
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    utimesSync(file, before.atime, before.mtime);
    const bundle = await get();
    expect(bundle.hit).toBe(false);
    expect(readFileSync(bundle.codePath, 'utf8')).toContain(edited);
    expect((await get()).hit).toBe(true);
  }
});

it('builds on a miss, reuses the file on a hit, rebuilds when a reached file or a dependency changes', async () => {
  const { builds, get } = harness();
  const first = await get();
  expect(first.hit).toBe(false);
  expect(builds).toHaveLength(1);
  expect(readFileSync(first.codePath, 'utf8')).toBe('/* bundle 1 */');
  // No temporary file left behind.
  expect(readdirSync(path.join(dir, 'cache'))).toEqual([path.basename(first.codePath)]);

  const again = await get();
  expect(again).toEqual({ ...first, hit: true });
  expect(builds).toHaveLength(1);

  writeFileSync(path.join(dir, 'src/lib/unrelated.ts'), `export const u = 2;\n`);
  expect((await get()).hit).toBe(true);

  // Reached by `import type` only: erased before bundling, so the bundle stays.
  writeFileSync(path.join(dir, 'src/lib/types.ts'), `export type X = number;\n`);
  expect((await get()).hit).toBe(true);

  writeFileSync(path.join(dir, 'src/lib/pure.ts'), `export const f = () => 2;\n`);
  const changed = await get();
  expect(changed.hit).toBe(false);
  expect(changed.key).not.toBe(first.key);
  expect(builds).toHaveLength(2);

  writeFileSync(path.join(dir, 'deps.lock'), `{"v":2}\n`);
  expect((await get()).hit).toBe(false);
  expect(builds).toHaveLength(3);
  // The old bundles stay (a rollback reuses its own), the latest is a hit again.
  expect((await get()).hit).toBe(true);
  expect(existsSync(first.codePath)).toBe(true);
});

it('a failed build leaves no bundle: the next start builds again', async () => {
  let fail = true;
  const opts = {
    entry: path.join(dir, 'src/wf/index.ts'),
    options: {},
    depFiles: [path.join(dir, 'deps.lock')],
    cacheDir: path.join(dir, 'cache'),
    build: async (out: string) => {
      writeFileSync(out, 'partial');
      if (fail) throw new Error('webpack failed');
    },
  };
  await expect(cachedWorkflowBundle(opts)).rejects.toThrow('webpack failed');
  expect(readdirSync(path.join(dir, 'cache'))).toEqual([]);
  fail = false;
  expect((await cachedWorkflowBundle(opts)).hit).toBe(false);
});

it('the real workflows entry reaches every workflow file and the domain helpers and messages they import', () => {
  const files = workflowSourceFiles(WORKFLOWS_PATH).map((f) => path.relative(path.join(__dirname, '../../..'), f));
  expect(files).toEqual(
    expect.arrayContaining([
      '.data/workflow-entry/index.ts',
      'modules/bookings/booking-approval.workflow.ts',
      'modules/sequences/sequence-enrollment.workflow.ts',
      'modules/sequences/send-window.pure.ts',
      'modules/sequences/sequence-enrollment-walk.pure.ts',
      // The message descriptors (defineSignal/defineUpdate values) the workflows register.
      'modules/bookings/booking-approval.messages.ts',
      'modules/contracts/contract-envelope.messages.ts',
      'modules/sequences/sequence-enrollment.messages.ts',
    ]),
  );
  expect(files.every((f) => !f.startsWith('node_modules'))).toBe(true);
});
