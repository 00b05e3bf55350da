import path from 'node:path';
import { ensureGoTool, findGo, goInstall } from './go-tool';
import { formatSeconds, type LogFn } from './log';
import { toolsBinDir } from './paths';

/** 1.5.1 is the newest CLI release that `go install` can build (later ones carry `replace` directives). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export const temporalCliPath = path.join(toolsBinDir, 'temporal');

// Lines `go install -v` prints for each compiled package: a bare import path.
const PACKAGE_LINE = /^[\w.~+-]+(\/[\w.~+-]+)*$/;

/**
 * Path of the Temporal CLI. `CRM_TEMPORAL_CLI` points at an existing binary; otherwise
 * `.tools/bin/temporal`, built with `go install` on first use (a few minutes).
 */
export function ensureTemporalCli(
  options: { log?: LogFn; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<string> {
  return ensureGoTool({ override: 'CRM_TEMPORAL_CLI', path: temporalCliPath, build: buildTemporalCli }, options);
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
  let packages = 0;
  let pending = '';
  const heartbeat = setInterval(() => {
    log(`  …still building (${formatSeconds(Date.now() - started)}, ${packages} packages compiled)`);
  }, 30_000);
  const onOutput = (chunk: Buffer): void => {
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
  try {
    await goInstall(go, ['-v', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], temporalCliPath, {
      what: 'the Temporal CLI',
      goflags: '',
      signal,
      onOutput,
    });
  } finally {
    clearInterval(heartbeat);
    if (pending.trim()) log(`  ${pending}`);
  }
  log(`Temporal CLI built in ${formatSeconds(Date.now() - started)}: ${temporalCliPath}`);
  return temporalCliPath;
}
