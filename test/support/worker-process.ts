// A worker in a process of its own (support/worker-child.ts), for the tests that kill one mid-work.
import type { ChildProcess } from 'node:child_process';
import { spawnTsxChild } from './tsx-child';

/**
 * Starts the worker child with `env` over this process's environment; resolves once it printed
 * `started`, rejects if it exits before.
 */
export async function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return (await spawnTsxChild('worker-child.ts', { env, ready: /started\n/ })).proc;
}
