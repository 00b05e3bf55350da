import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../infra/paths';
import { startTestApp, type TestApp } from '../support/app';

// The generated OpenAPI document must pass `redocly lint` (rules in redocly.yaml) with no errors.
// The document is written under .data/ so a failure can be inspected: npx redocly lint <file>.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

function redocly(args: string[]): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(repoRoot, 'node_modules/.bin/redocly'),
      args,
      {
        cwd: repoRoot,
        timeout: 120_000,
        maxBuffer: 32 * 1024 * 1024,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
      (err, stdout, stderr) => {
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          output: `${stdout}\n${stderr}`,
        });
      },
    );
  });
}

/** Warnings explained in redocly.yaml; any other rule that warns fails the test. */
const EXPLAINED_WARNINGS = ['no-ambiguous-paths', 'operation-2xx-response'];

it('redocly lint finds no errors in /api/v1/docs?type=openapi, only explained warnings', async () => {
  const res = await app.anonymous.get('/api/v1/docs?type=openapi');
  expect(res.status).toBe(200);
  const dir = path.join(repoRoot, '.data', 'openapi-lint');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `openapi-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(res.body, null, 2));
  try {
    const { code, stdout, output } = await redocly([
      'lint',
      file,
      '--config',
      path.join(repoRoot, 'redocly.yaml'),
      '--format',
      'json',
    ]);
    if (!stdout.trim().startsWith('{'))
      throw new Error(`redocly lint printed no report (exit ${code}):\n${output.slice(-4000)}`);
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string }[];
    };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(code).toBe(0);
    const unexplained = report.problems
      .filter((p) => p.severity === 'warn' && !EXPLAINED_WARNINGS.includes(p.ruleId))
      .map((p) => `${p.ruleId}: ${p.message}`);
    expect(unexplained).toEqual([]);
  } finally {
    if (!process.env.CRM_KEEP_OPENAPI) fs.rmSync(file, { force: true });
  }
}, 180_000);
