// `npm test`: type check, lint, then a fresh test stack (own ports and data folder), migrations and
// jest against it. Extra args go to jest: `npm test -- test/http/companies`.
// CRM_TEST_SKIP_CHECKS=1 skips tsc, eslint, prettier and depcruise; CI=true adds jest's --ci.
// CRM_TEST_JEST_NODE_ARGS passes node flags to jest's process (`--cpu-prof --cpu-prof-dir=/tmp/prof` with
// `--runInBand` profiles a test file; NODE_OPTIONS refuses --cpu-prof).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDockerCompose } from '../infra/docker-compose';
import { liveLockOwner, StackLockedError } from '../infra/lock';
import { formatSeconds, stackLog as log } from '../infra/log';
import { runMigrations } from '../infra/node-scripts';
import { DATA_DIR_MARKER, repoRoot } from '../infra/paths';
import { onStopSignals } from '../infra/process';
import { resolveStackConfig, startStack, type RunningStack } from '../infra/stack';

const jestArgs = process.argv.slice(2);
const isCi = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const skipChecks = process.env.CRM_TEST_SKIP_CHECKS === '1';
const startup = new AbortController();
let interrupted: { signal: NodeJS.Signals; code: number } | undefined;
const running = new Set<ChildProcess>();
/** Exit code to use once a signal arrived (a function: TS would narrow a plain read to never). */
const interruptedCode = (): number | undefined => interrupted?.code;

onStopSignals(
  log,
  () => Boolean(interrupted),
  (signal, code) => {
    interrupted = { signal, code };
    log(`${signal} received: stopping…`);
    startup.abort();
    // A terminal Ctrl-C reached the foreground child already; a SIGTERM sent to us alone did not.
    if (signal === 'SIGTERM') for (const child of running) child.kill(signal);
  },
);

/**
 * Runs a node script in the foreground (our process group, so Ctrl-C reaches it); resolves its exit code and, with
 * `capture`, what it printed (stdout and stderr together), so that checks running side by side never interleave.
 */
function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: readonly string[] = [],
  capture = false,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      cwd: repoRoot,
      env,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    running.add(child);
    let output = '';
    const collect = (chunk: Buffer): void => void (output += chunk.toString());
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', (error) => {
      running.delete(child);
      resolve({ code: 1, output: `${output}could not run ${script}: ${error.message}\n` });
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code: code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1), output });
    });
  });
}

const bin = (relative: string): string => path.join(repoRoot, 'node_modules', relative);

async function runChecks(): Promise<boolean> {
  let ok = true;
  // [name, script, args], taken in order by two lanes.
  const queue: [string, string, string[]][] = [
    ['tsc --noEmit', bin('typescript/bin/tsc'), ['--noEmit', '-p', 'tsconfig.json']],
    ['eslint .', bin('eslint/bin/eslint.js'), ['.']],
    // Formatting (.prettierrc: printWidth 120); `npm run format` fixes what this reports.
    ['prettier --check .', bin('prettier/bin/prettier.cjs'), ['--check', '--log-level', 'warn', '.']],
    // Import cycles and layer boundaries (.dependency-cruiser.cjs).
    [
      'depcruise',
      bin('dependency-cruiser/bin/dependency-cruise.mjs'),
      [
        '--config',
        '.dependency-cruiser.cjs',
        'api',
        'modules',
        'search',
        'platform',
        'app',
        'adapters',
        'bin',
        'infra',
        'test',
        'bench',
      ],
    ],
  ];
  // Two at a time (each is mostly one core), each one's output printed whole when it ends.
  const next = async (): Promise<void> => {
    for (let check = queue.shift(); check && !interrupted; check = queue.shift()) {
      const [name, script, args] = check;
      const started = Date.now();
      log(`${name}…`);
      const { code, output } = await runNode(script, args, process.env, [], true);
      if (output.trim()) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
      log(`${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${formatSeconds(Date.now() - started)}`);
      ok &&= code === 0;
    }
  };
  await Promise.all([next(), next()]);
  return ok && !interrupted;
}

/** Each run starts from an empty data folder, so results never depend on a previous run. */
function resetTestDataDir(dataDir: string): void {
  if (!fs.existsSync(dataDir)) return;
  const owner = liveLockOwner(dataDir);
  if (owner !== undefined) throw new StackLockedError(dataDir, owner);
  const resolved = path.resolve(dataDir);
  const forbidden = [path.parse(resolved).root, repoRoot, os.homedir()];
  const isOurs = fs.existsSync(path.join(resolved, DATA_DIR_MARKER)) || fs.readdirSync(resolved).length === 0;
  if (forbidden.includes(resolved) || !isOurs) {
    throw new Error(`Refusing to delete ${resolved}: it is not a stack data folder (no ${DATA_DIR_MARKER} file).`);
  }
  fs.rmSync(resolved, { recursive: true, force: true });
}

interface JestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numRuntimeErrorTestSuites: number;
}

function readJestSummary(file: string): JestSummary | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as JestSummary;
  } catch {
    return undefined;
  }
}

/** Distinct contract violations recorded by the app during the run, with their count. */
function readViolations(file: string): string[] {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const counts = new Map<string, number>();
  for (const line of text.split('\n').filter(Boolean)) {
    const v = JSON.parse(line) as { method: string; route: string; status: number; problem: string };
    const key = `${v.method} ${v.route} ${v.status}: ${v.problem}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => (n > 1 ? `${key} (×${n})` : key));
}

async function runJest(stack: RunningStack, dataDir: string): Promise<number> {
  const wantsOwnJson = jestArgs.some((arg) => arg === '--json' || arg.startsWith('--outputFile'));
  // Inside the stack's data folder (ignored by git), never next to the clone or in a shared tmp.
  const summaryFile = path.join(dataDir, `crm-jest-${process.pid}.json`);
  const args = [
    ...(isCi ? ['--ci'] : []),
    ...(wantsOwnJson ? [] : ['--json', `--outputFile=${summaryFile}`]),
    ...jestArgs,
  ];
  // Every answer any test receives is checked against the document (api/docs/contract-check.ts).
  const violationsFile = path.join(dataDir, `contract-violations-${process.pid}.jsonl`);
  fs.rmSync(violationsFile, { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...stack.env,
    CRM_TEST: '1',
    CRM_CONTRACT_CHECK: process.env.CRM_CONTRACT_CHECK ?? '1',
    CRM_CONTRACT_VIOLATIONS: violationsFile,
  };
  log(`jest ${jestArgs.join(' ')}`.trim());
  const jestNodeArgs = (process.env.CRM_TEST_JEST_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  let { code } = await runNode(bin('jest/bin/jest.js'), args, env, jestNodeArgs);
  const violations = readViolations(violationsFile);
  if (violations.length) {
    log(`${violations.length} answer(s) did not match the documented contract:`);
    for (const v of violations) log(`  ${v}`);
    code ||= 1;
  }
  if (!wantsOwnJson) {
    const summary = readJestSummary(summaryFile);
    fs.rmSync(summaryFile, { force: true });
    if (summary) {
      const skipped = summary.numPendingTests + summary.numTodoTests;
      // One plain closing line that CI logs can be read by.
      process.stdout.write(
        `\ntests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed, ${skipped} skipped` +
          (summary.numRuntimeErrorTestSuites > 0
            ? ` (${summary.numRuntimeErrorTestSuites} suites failed to run)`
            : '') +
          '\n',
      );
    }
  }
  return code;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  ensureDockerCompose(log);
  const config = resolveStackConfig({ profile: 'test' });
  resetTestDataDir(config.dataDir);

  // The checks and the stack's start-up (services, migrations) run side by side; failed checks stop the start-up.
  if (skipChecks) log('CRM_TEST_SKIP_CHECKS=1: skipping tsc, eslint, prettier and depcruise');
  const checks = (skipChecks ? Promise.resolve(true) : runChecks()).then((ok) => {
    if (!ok) startup.abort();
    return ok;
  });
  let stack: RunningStack | undefined;
  try {
    const ready = (async () => {
      stack = await startStack({ profile: 'test', handleSignals: false, signal: startup.signal });
      await runMigrations({ ...process.env, ...stack.env, CRM_TEST: '1' }, log, startup.signal);
      return stack;
    })();
    // Both settle before anything is decided, so a failing check is reported whole even when the start-up failed.
    const [checksOk, started] = await Promise.all([
      checks,
      ready.then(
        (s) => ({ s }),
        (error: unknown) => ({ error }),
      ),
    ]);
    const early = interruptedCode();
    if (early !== undefined) return early;
    if (!checksOk) return 1;
    if ('error' in started) throw started.error;
    const code = await runJest(started.s, config.dataDir);
    return interruptedCode() ?? code;
  } catch (error) {
    const early = interruptedCode();
    if (early !== undefined) return early;
    throw error;
  } finally {
    await stack?.stop();
    log(`npm test finished in ${formatSeconds(Date.now() - startedAt)}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Our own errors say what to do; a stack trace would only bury that.
    log(`npm test failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
