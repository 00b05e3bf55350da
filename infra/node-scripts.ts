import fs from 'node:fs';
import path from 'node:path';
import { formatSeconds, type LogFn } from './log';
import { repoRoot } from './paths';
import { describeExit, spawnManaged, type ManagedProcess } from './process';

/**
 * Runs a TypeScript entry point of this repo like `tsx <script>`, as `node --import tsx <script>`:
 * the same loader, but one process instead of two, so signals and exit codes are direct.
 */
export function spawnTsScript(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  options: { output?: 'inherit' | 'stderr'; args?: string[] } = {},
): ManagedProcess {
  const file = path.join(repoRoot, script);
  if (!fs.existsSync(file)) throw new Error(`${script} does not exist`);
  return spawnNode(name, ['--import', 'tsx', file, ...(options.args ?? [])], env, options);
}

/** `node <args>` in the repository root, managed like spawnTsScript (e.g. the precompiled worker). */
export function spawnNode(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { output?: 'inherit' | 'stderr' } = {},
): ManagedProcess {
  return spawnManaged({
    name,
    command: process.execPath,
    args,
    cwd: repoRoot,
    env,
    output: options.output ?? 'inherit',
    stopSignal: 'SIGTERM',
    signalGroup: true,
  });
}

/** `tsx bin/migrate.ts` with the stack env; throws when it fails. */
export async function runMigrations(env: NodeJS.ProcessEnv, log: LogFn, signal?: AbortSignal): Promise<void> {
  const started = Date.now();
  log('running migrations (bin/migrate.ts)…');
  const child = spawnTsScript('migrate', 'bin/migrate.ts', env, { output: 'stderr' });
  const onAbort = (): void => void child.stop(10_000);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await child.exited;
    if (signal?.aborted) throw new Error('migrations cancelled');
    if (exit.code !== 0) throw new Error(`bin/migrate.ts failed (${describeExit(exit)})`);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  log(`migrations done (${formatSeconds(Date.now() - started)})`);
}
