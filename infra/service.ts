import type { LogFn } from './log';
import type { ManagedProcess } from './process';

export type ServiceName = 'postgres' | 'meilisearch' | 'temporal';

/** What a launcher gets from the stack. */
export interface LaunchContext {
  log: LogFn;
  /** Aborted when the stack is stopped while it is still starting (Ctrl-C during start-up). */
  signal: AbortSignal;
  /** Registers a spawned process: recorded in the lock file, watched for unexpected exits. */
  track(service: ServiceName, child: ManagedProcess, exe: string): void;
}

export interface RunningService {
  readonly name: ServiceName;
  readonly processes: readonly ManagedProcess[];
  stop(): Promise<void>;
}

export function throwIfAborted(signal: AbortSignal, what: string): void {
  if (signal.aborted) throw new Error(`${what}: start-up cancelled`);
}
