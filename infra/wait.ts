export interface WaitOptions {
  /** What we are waiting for, used in the timeout message. */
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Checked before each attempt; a returned string aborts the wait with that message. */
  abortIf?: () => string | undefined;
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than `undefined` (a throw counts as "not yet"). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 200;
  let lastError: unknown;
  for (;;) {
    const abortReason = options.abortIf?.();
    if (abortReason) throw new Error(abortReason);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${options.what}${detail}`);
    }
    await delay(interval);
  }
}
