/**
 * Group commit: concurrent calls share one statement. A call joins the queue; the queue goes out as
 * one batch (at most `maxBatch` calls) on the next turn of the event loop when fewer than
 * `maxInFlight` batches are running, else as soon as one ends. No timer: a lone call goes at once,
 * a burst fills the batches while the previous one is in Postgres. Each call is answered with its
 * own outcome once its batch's statement has committed.
 */

/** A Postgres error raised by a statement (it rolled back whole), as opposed to a lost connection. */
const isStatementError = (err: unknown): boolean => {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
};

export interface GroupCommitOptions {
  maxBatch?: number;
  maxInFlight?: number;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/**
 * `run` executes one batch in a single statement (all or nothing) and answers one outcome per item,
 * in order. When a batch of several fails with a statement error (nothing of it was written), each
 * item runs again alone, so each call gets its own answer and one bad item fails only itself; any
 * other failure (a lost connection: the outcome is unknown) is every call's answer.
 */
export function groupCommit<I, O>(
  run: (items: I[]) => Promise<O[]>,
  opts: GroupCommitOptions = {},
): (item: I) => Promise<O> {
  const maxBatch = Math.max(1, opts.maxBatch ?? 100);
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 2);
  let queue: Pending<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  const settle = async (batch: Pending<I, O>[]): Promise<void> => {
    try {
      const out = await run(batch.map((p) => p.item));
      if (out.length !== batch.length)
        throw new Error(`group commit: ${out.length} outcomes for ${batch.length} items`);
      batch.forEach((p, i) => p.resolve(out[i]!));
    } catch (err) {
      if (batch.length === 1 || !isStatementError(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
      await Promise.all(batch.map((p) => settle([p])));
    }
  };

  const flush = (): void => {
    scheduled = false;
    while (queue.length && inFlight < maxInFlight) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      inFlight++;
      void settle(batch).finally(() => {
        inFlight--;
        if (queue.length) schedule();
      });
    }
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (inFlight < maxInFlight) schedule();
    });
}
