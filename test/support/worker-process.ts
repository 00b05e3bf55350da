// A worker in a process of its own (support/worker-child.ts), for the tests that kill one mid-work.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * Starts the worker child with `env` over this process's environment; resolves once it printed
 * `started`, rejects if it exits before.
 */
export function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'worker-child.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('started\n')) resolve(proc);
    });
    proc.once('exit', (code) => reject(new Error(`worker child exited with ${code} before starting`)));
  });
}
