// `npm run contract:drift`: the API's real traffic checked against its served OpenAPI document from
// outside. Starts the services (test profile, own data folder and ports), the API and a worker, puts
// `redocly proxy` (a recording reverse proxy) in front of the API, drives the SDK scenario of
// test/support/sdk-scenario.ts through it, then runs `redocly drift` on the recorded HAR against
// GET /api/v1/docs?type=openapi. Loopback only; bounded (one scenario). Last line:
// RESULT operations_exercised=<n> responses_checked=<n> drift_errors=<n>
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApi } from '../api/bootstrap';
import { loadConfig } from '../app/config';
import { createLogger } from '../platform/logger';
import { runMigrations } from '../app/migrate';
import { createWorkspace } from '../modules/workspaces';
import { devDataDir, repoRoot } from '../infra/paths';
import { startStack } from '../infra/stack';
import { freePort, isListening } from '../infra/ports';
import { waitFor } from '../infra/wait';
import { createCrmClient } from '../sdk/typescript';
import { runSdkScenario } from '../test/support/sdk-scenario';

const log = (line: string): void => void process.stderr.write(`[drift] ${line}\n`);
const redoclyBin = path.join(repoRoot, 'node_modules', '.bin', 'redocly');
const redoclyEnv = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(redoclyBin, args, { cwd: repoRoot, env: redoclyEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function stopProxy(proxy: ChildProcess, har: string): Promise<void> {
  const exited = new Promise((resolve) => proxy.once('exit', resolve));
  proxy.kill('SIGINT');
  const timer = setTimeout(() => proxy.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  if (!fs.existsSync(har)) throw new Error(`redocly proxy wrote no HAR file (${har})`);
}

/** The parts of `redocly drift --format json` and `--coverage-output` read here. */
interface DriftReport {
  run: {
    totalExchanges: number;
    documentedExchanges: number;
    undocumentedExchanges: number;
    skippedExchanges: number;
    findingsBySeverity: { error?: number; warning?: number; info?: number };
  };
  problems: { ruleId?: string; severity?: string; message?: string }[];
}
interface Coverage {
  totals: Record<'operations' | 'responses', { covered: number; total: number }>;
}

async function main(): Promise<void> {
  const dataDir = path.join(devDataDir(), 'contract-drift');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startStack({
    profile: 'test',
    dataDir,
    log,
    ports: {
      postgres: Number(process.env.CRM_DRIFT_PG_PORT ?? 54369),
      meilisearch: Number(process.env.CRM_DRIFT_MEILI_PORT ?? 7730),
      temporal: Number(process.env.CRM_DRIFT_TEMPORAL_PORT ?? 7263),
      temporalUi: Number(process.env.CRM_DRIFT_TEMPORAL_UI_PORT ?? 8263),
    },
  });
  const env = { ...process.env, ...stack.env, CRM_TEST: '1' } as NodeJS.ProcessEnv;
  let proxy: ChildProcess | undefined;
  const closers: (() => Promise<void>)[] = [];
  try {
    await runMigrations(env.DATABASE_URL!);
    const config = loadConfig({ ...env, RATE_LIMIT_PER_MINUTE: '100000' });
    // The production worker (Temporal workflows and the outbox dispatcher: search indexing, starts).
    const worker = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'bin', 'worker.ts')], {
      cwd: repoRoot,
      env: { ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    closers.push(async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      const timer = setTimeout(() => worker.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    });
    const api = await buildApi(config, createLogger('warn', 'api'));
    const server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    closers.push(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await api.close();
    });
    const apiPort = (server.address() as AddressInfo).port;

    const docFile = path.join(dataDir, 'openapi.json');
    const served = await fetch(`http://127.0.0.1:${apiPort}/api/v1/docs?type=openapi`);
    fs.writeFileSync(docFile, JSON.stringify(await served.json(), null, 2));

    const proxyPort = await freePort();
    const har = path.join(dataDir, 'traffic.har');
    proxy = spawn(
      redoclyBin,
      ['proxy', '--target', `http://127.0.0.1:${apiPort}`, '--port', String(proxyPort), '--har', har],
      { cwd: repoRoot, env: redoclyEnv, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await waitFor(async () => ((await isListening(proxyPort)) ? true : undefined), {
      what: `redocly proxy on :${proxyPort}`,
      timeoutMs: 60_000,
    });
    log(`recording proxy on :${proxyPort} → API on :${apiPort}`);

    const { apiKey } = await createWorkspace(api.deps.orm.em.fork(), { name: 'Drift scenario' });
    const crm = createCrmClient({ baseUrl: `http://127.0.0.1:${proxyPort}`, apiKey });
    const { steps } = await runSdkScenario(crm);
    log(`scenario: ${steps.length} calls`);
    await stopProxy(proxy, har);
    proxy = undefined;

    const report = path.join(dataDir, 'drift.json');
    const coverage = path.join(dataDir, 'coverage.json');
    const drift = await run([
      'drift',
      har,
      '--api',
      docFile,
      // The HAR records the upstream URL (the API's), not the proxy's.
      '--server',
      `http://127.0.0.1:${apiPort}`,
      '--format',
      'json',
      '-o',
      report,
      '--coverage-output',
      coverage,
    ]);
    if (!fs.existsSync(report))
      throw new Error(`redocly drift wrote no report (exit ${drift.code}):\n${drift.stderr.slice(-3000)}`);
    const { run: summary, problems } = JSON.parse(fs.readFileSync(report, 'utf8')) as DriftReport;
    for (const p of problems.slice(0, 40)) log(`${p.severity ?? '?'} ${p.ruleId ?? ''}: ${p.message ?? ''}`);
    // Drift: every error finding, and every exchange the document does not describe or that matched no operation.
    const errors = (summary.findingsBySeverity.error ?? 0) + summary.undocumentedExchanges + summary.skippedExchanges;
    const covered = (JSON.parse(fs.readFileSync(coverage, 'utf8')) as Coverage).totals;
    log(
      `coverage: operations ${covered.operations.covered}/${covered.operations.total}, responses ${covered.responses.covered}/${covered.responses.total}`,
    );
    process.stdout.write(
      `RESULT operations_exercised=${covered.operations.covered} responses_checked=${summary.documentedExchanges} drift_errors=${errors}\n`,
    );
    if (errors > 0) process.exitCode = 1;
  } finally {
    if (proxy) proxy.kill('SIGKILL');
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
