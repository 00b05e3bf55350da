// The Go programs the stack builds itself on first use (the Temporal CLI, gofakes3): a binary named by an environment
// variable, else `.tools/bin/<name>`, else `go install` into that place, one build at a time per binary.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stackLog, type LogFn } from './log';
import { toolsBinDir } from './paths';

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function findGo(): string | undefined {
  if (spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0) return 'go';
  for (const candidate of ['/usr/local/go/bin/go', path.join(os.homedir(), 'go', 'bin', 'go'), '/usr/lib/go/bin/go']) {
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export interface GoTool {
  /** The environment variable that names an existing binary instead (never built then). */
  override: string;
  /** `.tools/bin/<binary>`. */
  path: string;
  build(log: LogFn, signal?: AbortSignal): Promise<string>;
}

const building = new Map<string, Promise<string>>();

/** Path of `tool`: its override if set (an executable file, else a rejection), else its built binary, built once. */
export function ensureGoTool(
  tool: GoTool,
  options: { log?: LogFn; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<string> {
  const override = (options.env ?? process.env)[tool.override]?.trim();
  if (override)
    return isExecutable(override)
      ? Promise.resolve(override)
      : Promise.reject(new Error(`${tool.override}=${override} is not an executable file`));
  if (isExecutable(tool.path)) return Promise.resolve(tool.path);
  let build = building.get(tool.path);
  if (!build) {
    build = tool.build(options.log ?? stackLog, options.signal).finally(() => building.delete(tool.path));
    building.set(tool.path, build);
  }
  return build;
}

/**
 * `go install <args>` into a private folder of `.tools/bin`, the binary then renamed to `target`: a concurrent run
 * never sees a half-written binary. `onOutput` gets go's stdout and stderr; a failure names `what` and adds `detail()`.
 */
export async function goInstall(
  go: string,
  args: readonly string[],
  target: string,
  opts: {
    what: string;
    goflags: string;
    signal?: AbortSignal;
    onOutput: (chunk: Buffer) => void;
    detail?: () => string;
  },
): Promise<void> {
  fs.mkdirSync(toolsBinDir, { recursive: true });
  const gobin = fs.mkdtempSync(path.join(toolsBinDir, `.${path.basename(target)}-build-`));
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', ...args], {
        env: { ...process.env, GOBIN: gobin, GOFLAGS: process.env.GOFLAGS ?? opts.goflags },
        stdio: ['ignore', 'pipe', 'pipe'],
        signal: opts.signal,
      });
      child.stdout.on('data', opts.onOutput);
      child.stderr.on('data', opts.onOutput);
      child.once('error', (error) => reject(opts.signal?.aborted ? new Error(`${opts.what} build cancelled`) : error));
      child.once('close', (code, signal) => {
        if (code === 0) return resolve();
        const detail = opts.detail?.();
        reject(
          new Error(
            `go install of ${opts.what} failed (${signal ?? `exit code ${code}`})${detail ? `: ${detail}` : ''}`,
          ),
        );
      });
    });
    fs.renameSync(path.join(gobin, path.basename(target)), target);
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}
