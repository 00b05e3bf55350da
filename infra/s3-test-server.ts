import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureGoTool, findGo, goInstall } from './go-tool';
import { formatSeconds, type LogFn } from './log';
import { toolsBinDir } from './paths';
import { freePort, isListening } from './ports';

/**
 * gofakes3: an in-memory S3-compatible server (Go), used by the S3 storage tests. Built once with
 * `go install` into `.tools/bin/gofakes3` like the Temporal CLI (a few seconds with a warm module cache).
 */
export const GOFAKES3_MODULE = 'github.com/johannesboyne/gofakes3/cmd/gofakes3';
export const GOFAKES3_VERSION = 'v1.2.0';
export const gofakes3Path = path.join(toolsBinDir, 'gofakes3');

/** Path of gofakes3: `CRM_GOFAKES3` if set, else `.tools/bin/gofakes3`, built on first use. */
export function ensureGofakes3(options: { log?: LogFn; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return ensureGoTool({ override: 'CRM_GOFAKES3', path: gofakes3Path, build }, options);
}

async function build(log: LogFn): Promise<string> {
  const go = findGo();
  if (!go)
    throw new Error(
      'gofakes3 (the S3-compatible test server) is not built and no Go toolchain was found: install Go 1.21+, or set CRM_GOFAKES3 to a gofakes3 binary.',
    );
  log(`Building gofakes3 with go install ${GOFAKES3_MODULE}@${GOFAKES3_VERSION} (first run only)…`);
  const started = Date.now();
  let output = '';
  await goInstall(go, [`${GOFAKES3_MODULE}@${GOFAKES3_VERSION}`], gofakes3Path, {
    what: 'gofakes3',
    goflags: '-buildvcs=false',
    onOutput: (c) => (output += c.toString()),
    detail: () => output.slice(-2000),
  });
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
