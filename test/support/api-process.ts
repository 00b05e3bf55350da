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

/** Process `pid` (/proc/<pid>/stat): its command name, parent and CPU time (user + system, ms); undefined if gone. */
export function procStat(pid: number): { comm: string; ppid: number; ms: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited, or not Linux
  }
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime) are at 11 and 12 after the comm; clock ticks of 10 ms.
  return {
    comm: stat.slice(stat.indexOf('(') + 1, close),
    ppid: Number(fields[1]),
    ms: (Number(fields[11]) + Number(fields[12])) * 10,
  };
}

/** utime + stime of a process in ms; 0 when not Linux or gone. */
export const procCpuMs = (pid: number): number => procStat(pid)?.ms ?? 0;
