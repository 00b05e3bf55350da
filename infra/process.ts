import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LogFn } from './log';
import { delay } from './wait';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** Resolves (never rejects) once the process has exited. */
  readonly exited: Promise<ProcessExit>;
  hasExited(): boolean;
  /** True once stop() was called: an exit after that is expected. */
  isStopping(): boolean;
  /** Sends the stop signal, waits up to `timeoutMs`, then SIGKILLs the whole process group. */
  stop(timeoutMs?: number): Promise<ProcessExit>;
}

export interface SpawnManagedOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** Append stdout and stderr to this file. Without it, output goes to our stderr/stdout. */
  logFile?: string;
  /** Where output goes without a log file: 'inherit' (stdout+stderr) or 'stderr' (both to our stderr). */
  output?: 'inherit' | 'stderr';
  /** Graceful stop signal (postgres wants SIGINT = fast shutdown; SIGTERM would wait for clients). */
  stopSignal?: NodeJS.Signals;
  /** Signal the kernel sends the child when this process dies, even by SIGKILL (Linux, via setpriv). */
  parentDeathSignal?: NodeJS.Signals | false;
  /** Send the stop signal to the whole process group instead of the leader only. */
  signalGroup?: boolean;
}

const live = new Set<InternalProcess>();
let exitHookInstalled = false;

interface InternalProcess extends ManagedProcess {
  readonly stopSignal: NodeJS.Signals;
  readonly signalGroup: boolean;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when the parent exits without stop(): children get their graceful signal and finish
  // shutting down on their own. (A SIGKILLed parent is covered by the parent-death signal.)
  process.on('exit', () => {
    for (const child of live) {
      if (!child.hasExited()) sendSignal(child.pid, child.stopSignal, child.signalGroup);
    }
  });
}

function sendSignal(pid: number, signal: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // already gone
  }
}

let setprivPath: string | null | undefined;

/** util-linux `setpriv`, used to set PR_SET_PDEATHSIG before exec. Null when unavailable. */
export function findSetpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  if (process.platform === 'linux') {
    const dirs = (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/bin', '/bin', '/usr/sbin', '/sbin']);
    for (const dir of dirs) {
      const candidate = path.join(dir, 'setpriv');
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        setprivPath = candidate;
        break;
      } catch {
        // keep looking
      }
    }
  }
  return setprivPath;
}

/**
 * Spawns a long-running child in its own process group (so a terminal Ctrl-C reaches only us and we
 * decide the shutdown order) that still dies with us: parent-death signal, exit hook, stop().
 */
export function spawnManaged(options: SpawnManagedOptions): ManagedProcess {
  installExitHook();
  const stopSignal = options.stopSignal ?? 'SIGTERM';
  const deathSignal = options.parentDeathSignal === undefined ? stopSignal : options.parentDeathSignal;
  const setpriv = deathSignal ? findSetpriv() : null;
  const command = setpriv ?? options.command;
  const args = setpriv ? ['--pdeathsig', deathSignal as string, '--', options.command, ...options.args] : options.args;

  let logFd: number | undefined;
  if (options.logFile) {
    fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
    logFd = fs.openSync(options.logFile, 'a');
  }
  const out = logFd ?? (options.output === 'stderr' ? process.stderr : 'inherit');
  const err = logFd ?? 'inherit';

  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      uid: options.uid,
      gid: options.gid,
      detached: true,
      stdio: ['ignore', out, err],
    });
  } finally {
    if (logFd !== undefined) fs.closeSync(logFd);
  }

  let exitInfo: ProcessExit | undefined;
  let stopping = false;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      live.delete(managed);
      resolve(exitInfo);
    });
    child.once('error', (error) => {
      // spawn failure (e.g. ENOENT): report it as an exit so waiters fail fast
      process.stderr.write(`[stack] could not start ${options.name}: ${error.message}\n`);
      exitInfo = { code: 127, signal: null };
      live.delete(managed);
      resolve(exitInfo);
    });
  });

  const pid = child.pid ?? -1;
  const signalGroup = options.signalGroup ?? false;
  const managed: InternalProcess = {
    name: options.name,
    pid,
    exited,
    stopSignal,
    signalGroup,
    hasExited: () => exitInfo !== undefined,
    isStopping: () => stopping,
    async stop(timeoutMs = 15_000) {
      stopping = true;
      if (exitInfo) return exitInfo;
      sendSignal(pid, stopSignal, signalGroup);
      const result = await Promise.race([exited, delay(timeoutMs).then(() => undefined)]);
      if (result) {
        // Leftovers of the group (e.g. a grandchild) must not outlive the leader.
        sendSignal(pid, 'SIGKILL', true);
        return result;
      }
      process.stderr.write(`[stack] ${options.name} did not stop within ${timeoutMs / 1000} s; killing it\n`);
      sendSignal(pid, 'SIGKILL', true);
      return exited;
    },
  };
  if (pid > 0) live.add(managed);
  return managed;
}

/** Last `lines` lines of a log file, for error messages. */
export function tailFile(file: string, lines = 20): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.split('\n').filter(Boolean).slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? '?'}`;
}

/**
 * Handles SIGINT (exit code 130) and SIGTERM (143): `first(signal, code)` begins the stop; a signal that comes while
 * `stopping()` holds exits at once with its code. Answers a function that removes the handlers.
 */
export function onStopSignals(
  log: LogFn,
  stopping: () => boolean,
  first: (signal: NodeJS.Signals, code: number) => void,
): () => void {
  const handlers = (
    [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const
  ).map(([signal, code]) => {
    const handler = (): void => {
      if (stopping()) {
        log(`${signal} again: exiting now`);
        process.exit(code);
      }
      first(signal, code);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
  };
}
