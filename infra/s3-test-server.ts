import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatSeconds, stackLog, type LogFn } from './log';
import { toolsBinDir } from './paths';
import { freePort, isListening } from './ports';

/**
 * gofakes3: an in-memory S3-compatible server (Go), used by the S3 storage tests. Built once with
 * `go install` into `.tools/bin/gofakes3` like the Temporal CLI (a few seconds with a warm module cache).
 */
export const GOFAKES3_MODULE = 'github.com/johannesboyne/gofakes3/cmd/gofakes3';
export const GOFAKES3_VERSION = 'v1.2.0';
export const gofakes3Path = path.join(toolsBinDir, 'gofakes3');

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findGo(): string | undefined {
  if (spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0) return 'go';
  for (const candidate of ['/usr/local/go/bin/go', path.join(os.homedir(), 'go', 'bin', 'go'), '/usr/lib/go/bin/go']) {
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

let building: Promise<string> | undefined;

/** Path of gofakes3: `CRM_GOFAKES3` if set, else `.tools/bin/gofakes3`, built on first use. */
export function ensureGofakes3(options: { log?: LogFn; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const env = options.env ?? process.env;
  const override = env.CRM_GOFAKES3?.trim();
  if (override)
    return isExecutable(override)
      ? Promise.resolve(override)
      : Promise.reject(new Error(`CRM_GOFAKES3=${override} is not an executable file`));
  if (isExecutable(gofakes3Path)) return Promise.resolve(gofakes3Path);
  building ??= build(options.log ?? stackLog).finally(() => {
    building = undefined;
  });
  return building;
}

async function build(log: LogFn): Promise<string> {
  const go = findGo();
  if (!go)
    throw new Error(
      'gofakes3 (the S3-compatible test server) is not built and no Go toolchain was found: install Go 1.21+, or set CRM_GOFAKES3 to a gofakes3 binary.',
    );
  log(`Building gofakes3 with go install ${GOFAKES3_MODULE}@${GOFAKES3_VERSION} (first run only)…`);
  const started = Date.now();
  fs.mkdirSync(toolsBinDir, { recursive: true });
  // Private folder, then rename: a concurrent run never sees a half-written binary.
  const gobin = fs.mkdtempSync(path.join(toolsBinDir, '.gofakes3-build-'));
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', `${GOFAKES3_MODULE}@${GOFAKES3_VERSION}`], {
        env: { ...process.env, GOBIN: gobin, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.once('error', reject);
      child.once('close', (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`go install of gofakes3 failed (exit code ${code}): ${output.slice(-2000)}`)),
      );
    });
    fs.renameSync(path.join(gobin, 'gofakes3'), gofakes3Path);
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
  log(`gofakes3 built in ${formatSeconds(Date.now() - started)}: ${gofakes3Path}`);
  return gofakes3Path;
}

export interface RunningS3 {
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

/** Starts gofakes3 (memory backend) on a free loopback port with `bucket` created; stop() ends it. */
export async function startS3TestServer(bucket: string, options: { log?: LogFn } = {}): Promise<RunningS3> {
  const bin = await ensureGofakes3(options);
  const port = await freePort();
  const child: ChildProcess = spawn(
    bin,
    ['-backend', 'memory', '-host', `127.0.0.1:${port}`, '-initialbucket', bucket],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gofakes3 exited early: ${stderr}`);
    if (await isListening(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gofakes3 did not listen on ${port} within 15 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
