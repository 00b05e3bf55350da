// The test app's API in a child process (support/api-child.ts): the same app and config as startTestApp, on its own
// event loop, so a test's client (and whatever else the test process runs) does not slow the API it measures.
import { readFileSync } from 'node:fs';
import { HttpClient } from './app';
import { spawnTsxChild } from './tsx-child';

export interface ApiProcess {
  baseUrl: string;
  pid: number;
  /** A client of the child API with the given key. */
  client(apiKey?: string): HttpClient;
  /** CPU time (user + system) the child used so far, in ms (from /proc; 0 where there is none). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Starts the child with `env` on top of startTestApp's; resolves once it listens, rejects if it exits before.
 * CRM_TEST_API_CHILD_NODE_ARGS passes node flags to it (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles the API).
 */
export async function startApiProcess(env: Record<string, string> = {}): Promise<ApiProcess> {
  const { proc, ready, exited } = await spawnTsxChild('api-child.ts', {
    env: { API_CHILD_ENV: JSON.stringify(env) },
    ready: /listening (\S+)\n/,
    nodeArgs: (process.env.CRM_TEST_API_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  });
  const baseUrl = ready[1]!;
  return {
    baseUrl,
    pid: proc.pid!,
    client: (apiKey) => new HttpClient(baseUrl, apiKey),
    cpuMs: () => procCpuMs(proc.pid!),
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const killer = setTimeout(() => proc.kill('SIGKILL'), 8000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

/** utime + stime of a process (Linux /proc/<pid>/stat, in clock ticks of 10 ms); 0 when not Linux or gone. */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
