// A TypeScript entry point of test/support run in a node process of its own (through tsx): the shape shared by
// api-process.ts (the API) and worker-process.ts (a worker), so a test's client or the process it kills is not the
// test process.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface TsxChild {
  proc: ChildProcess;
  /** The match of `ready` in the child's stdout. */
  ready: RegExpExecArray;
  /** Resolves once the child has exited (at once if it has). */
  exited: Promise<void>;
}

/**
 * Starts `script` (a file beside this one) with `env` over this process's environment and node flags `nodeArgs`;
 * resolves once its stdout matches `ready`, rejects if it exits before. Its stdout is drained afterwards, its stderr
 * is this process's. The child never outlives the test process (a timed-out beforeAll never gets its handle).
 */
export function spawnTsxChild(
  script: string,
  opts: { env: NodeJS.ProcessEnv; ready: RegExp; nodeArgs?: readonly string[] },
): Promise<TsxChild> {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', path.join(__dirname, script)], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const orphaned = (): void => void proc.kill('SIGKILL');
  process.once('exit', orphaned);
  void exited.then(() => process.off('exit', orphaned));
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      reject(new Error(`${script} exited with ${signal ?? code} before it was ready`));
    proc.once('exit', onExit);
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = opts.ready.exec(out);
      if (!ready) return;
      proc.off('exit', onExit);
      proc.stdout!.removeAllListeners('data');
      proc.stdout!.resume();
      resolve({ proc, ready, exited });
    });
  });
}
