// Issue 25: no source file over 400 lines outside tests and migrations (split by concern instead). Generated files
// are not written by hand and are left out: the SDK schema (scripts/generate-sdk.ts writes it from the OpenAPI
// document) and the module-level cycle edges (`scripts/module-graph.ts --write-known` writes them).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const MAX_LINES = 400;
const root = path.resolve(__dirname, '../..');
const EXEMPT = [
  /^test\//,
  /\/__tests__\//,
  /^migrations\//,
  /^sdk\/typescript\/schema\.ts$/,
  /^scripts\/module-cycle-edges\.ts$/,
];

it(`has no source file over ${MAX_LINES} lines outside tests, migrations and generated code`, () => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !EXEMPT.some((re) => re.test(f)));
  expect(files.length).toBeGreaterThan(300);
  const over = files
    .map((f) => {
      try {
        return { f, lines: readFileSync(path.join(root, f), 'utf8').split('\n').length - 1 };
      } catch {
        return { f, lines: 0 }; // deleted in the working tree, not yet staged
      }
    })
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ f, lines }) => `${f}: ${lines}`);
  expect(over).toEqual([]);
});
