// The committed TypeScript SDK (sdk/typescript) is generated from the route registry's OpenAPI
// document; a route, view or parameter change without `npm run sdk:generate` fails here.
// (A child process: openapi-typescript's dependencies are ES modules, which jest's CommonJS runtime cannot load.)
import { execFile } from 'node:child_process';
import path from 'node:path';

const repoRoot = path.join(__dirname, '..', '..');

it('sdk/typescript matches the current OpenAPI document (else: npm run sdk:generate)', async () => {
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'scripts/generate-sdk.ts'), '--check'],
      { cwd: repoRoot, timeout: 110_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
  expect(result.output).toContain('sdk/typescript matches the route registry');
  expect(result.code).toBe(0);
}, 120_000);
