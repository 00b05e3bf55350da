import fs from 'node:fs';
import path from 'node:path';
import { delay } from './wait';

export const LOCK_FILE_NAME = 'stack.lock';

interface LockContent {
  pid: number;
  startedAt: string;
  /** Services this stack spawned, so a takeover of a stale lock can reap what is left of them. */
  children: Record<string, { pid: number; exe: string }>;
}

export class StackLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `Another stack (pid ${ownerPid}) is already running on the data folder ${dataDir}.\n` +
        `Stop it first (Ctrl-C in its terminal, or \`kill ${ownerPid}\`), ` +
        'or point this one at another folder with CRM_DATA_DIR (CRM_TEST_DATA_DIR for tests).',
    );
    this.name = 'StackLockedError';
  }
}

export interface StackLock {
  readonly file: string;
  recordChild(name: string, pid: number, exe: string): void;
  release(): void;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function cmdline(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

/** Alive and (where /proc tells) still running something that looks like `exe`: guards pid reuse. */
function isAliveAs(pid: number, exe: string): boolean {
  if (!isAlive(pid)) return false;
  const cmd = cmdline(pid);
  return cmd === undefined || cmd.includes(exe);
}

function readLock(file: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockContent>;
    if (typeof parsed.pid !== 'number') return undefined;
    return { pid: parsed.pid, startedAt: parsed.startedAt ?? '', children: parsed.children ?? {} };
  } catch {
    return undefined;
  }
}

/** Leftovers of a dead stack (its parent-death signal may still be shutting them down). */
async function reapChildren(content: LockContent, log: (line: string) => void): Promise<void> {
  const leftovers = Object.entries(content.children).filter(([, child]) => isAliveAs(child.pid, child.exe));
  if (leftovers.length === 0) return;
  log(`previous stack (pid ${content.pid}) died; stopping its leftovers: ${leftovers.map(([n]) => n).join(', ')}`);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && leftovers.some(([, c]) => isAliveAs(c.pid, c.exe))) await delay(200);
  for (const [, child] of leftovers) {
    if (isAliveAs(child.pid, child.exe)) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  }
  while (leftovers.some(([, c]) => isAliveAs(c.pid, c.exe))) await delay(100);
}

/** Pid of a live stack holding the lock on this data folder, if any. */
export function liveLockOwner(dataDir: string): number | undefined {
  const existing = readLock(path.join(dataDir, LOCK_FILE_NAME));
  return existing && existing.pid !== process.pid && isAliveAs(existing.pid, 'node') ? existing.pid : undefined;
}

/**
 * Takes `<dataDir>/stack.lock` for this process. Throws StackLockedError when a live stack holds it;
 * takes over a stale lock (dead pid) after reaping that stack's leftover services.
 */
export async function acquireStackLock(dataDir: string, log: (line: string) => void): Promise<StackLock> {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const content: LockContent = { pid: process.pid, startedAt: new Date().toISOString(), children: {} };
  fs.mkdirSync(dataDir, { recursive: true });

  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(content, null, 2) + '\n', { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const existing = readLock(file);
    if (existing && existing.pid !== process.pid && isAliveAs(existing.pid, 'node')) {
      throw new StackLockedError(dataDir, existing.pid);
    }
    if (existing) {
      log(`taking over a stale lock of pid ${existing.pid}`);
      await reapChildren(existing, log);
    }
    fs.rmSync(file, { force: true });
  }

  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // Only remove our own lock (a takeover by someone else after a long pause is theirs).
    if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
  process.on('exit', release);

  return {
    file,
    recordChild(name, pid, exe) {
      if (released) return;
      content.children[name] = { pid, exe };
      fs.writeFileSync(file, JSON.stringify(content, null, 2) + '\n');
    },
    release,
  };
}
