import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatSeconds, stackLog, type LogFn } from './log';
import { toolsBinDir } from './paths';

/** 1.5.1 is the newest CLI release that `go install` can build (later ones carry `replace` directives). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export const temporalCliPath = path.join(toolsBinDir, 'temporal');

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findGo(): string | undefined {
  const which = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (which.status === 0) return 'go';
  for (const candidate of ['/usr/local/go/bin/go', path.join(os.homedir(), 'go', 'bin', 'go'), '/usr/lib/go/bin/go']) {
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

// Lines `go install -v` prints for each compiled package: a bare import path.
const PACKAGE_LINE = /^[\w.~+-]+(\/[\w.~+-]+)*$/;

let building: Promise<string> | undefined;

/**
 * Path of the Temporal CLI. `CRM_TEMPORAL_CLI` points at an existing binary; otherwise
 * `.tools/bin/temporal`, built with `go install` on first use (a few minutes).
 */
export function ensureTemporalCli(
  options: { log?: LogFn; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const override = env.CRM_TEMPORAL_CLI?.trim();
  if (override) {
    if (!isExecutable(override)) {
      return Promise.reject(new Error(`CRM_TEMPORAL_CLI=${override} is not an executable file`));
    }
    return Promise.resolve(override);
  }
  if (isExecutable(temporalCliPath)) return Promise.resolve(temporalCliPath);
  building ??= buildTemporalCli(options.log ?? stackLog, options.signal).finally(() => {
    building = undefined;
  });
  return building;
}

async function buildTemporalCli(log: LogFn, signal?: AbortSignal): Promise<string> {
  const go = findGo();
  if (!go) {
    throw new Error(
      'The Temporal CLI is not built yet and no Go toolchain was found to build it. ' +
        'Install Go (1.21+; it fetches the 1.25 toolchain the CLI needs) and run again, set CRM_TEMPORAL_CLI to an existing `temporal` binary, ' +
        'or set TEMPORAL_ADDRESS to use a Temporal server you already run.',
    );
  }
  log('Building the Temporal CLI with go install (first run only, this takes a few minutes)…');
  log(`  go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} → ${temporalCliPath}`);
  const started = Date.now();
  // Build into a private folder and rename: a concurrent run never sees a half-written binary.
  fs.mkdirSync(toolsBinDir, { recursive: true });
  const gobin = fs.mkdtempSync(path.join(toolsBinDir, '.temporal-build-'));
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', '-v', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
        env: { ...process.env, GOBIN: gobin, GOFLAGS: process.env.GOFLAGS ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
        signal,
      });
      let packages = 0;
      let pending = '';
      const heartbeat = setInterval(() => {
        log(`  …still building (${formatSeconds(Date.now() - started)}, ${packages} packages compiled)`);
      }, 30_000);
      const onData = (chunk: Buffer): void => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (PACKAGE_LINE.test(line.trim())) {
            packages++;
            if (packages % 200 === 0) log(`  …${packages} packages compiled (${line.trim()})`);
          } else if (line.trim()) {
            log(`  ${line}`);
          }
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', (error) => {
        clearInterval(heartbeat);
        reject(signal?.aborted ? new Error('Temporal CLI build cancelled') : error);
      });
      child.once('close', (code, signal) => {
        clearInterval(heartbeat);
        if (pending.trim()) log(`  ${pending}`);
        if (code === 0) resolve();
        else reject(new Error(`go install of the Temporal CLI failed (${signal ?? `exit code ${code}`})`));
      });
    });
    fs.renameSync(path.join(gobin, 'temporal'), temporalCliPath);
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
  log(`Temporal CLI built in ${formatSeconds(Date.now() - started)}: ${temporalCliPath}`);
  return temporalCliPath;
}
