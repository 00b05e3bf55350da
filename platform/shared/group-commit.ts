/**
 * Group commit: each caller submits one item and waits for its own answer; what is submitted while
 * the writes are under way goes out together in the next one. Many callers, few statements: at most
 * `inFlight` writes at a time (more than one lets a group start while the last one is still in the
 * database, so a caller waits for less than two statements).
 */
export function groupCommit<T, R>(
  write: (items: T[]) => Promise<R[]>,
  opts: { inFlight?: number } = {},
): (item: T) => Promise<R> {
  const limit = Math.max(1, opts.inFlight ?? 1);
  let pending: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  let running = 0;
  let scheduled = false;
  const run = async (): Promise<void> => {
    while (pending.length) {
      const group = pending;
      pending = [];
      try {
        const out = await write(group.map((g) => g.item));
        group.forEach((g, i) => g.resolve(out[i]!));
      } catch (err) {
        for (const g of group) g.reject(err);
      }
    }
    running--;
  };
  const start = (): void => {
    scheduled = false;
    if (!pending.length || running >= limit) return;
    running++;
    void run();
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (running >= limit || scheduled) return;
      scheduled = true;
      // Whatever else is submitted in this turn joins the same write.
      queueMicrotask(start);
    });
}
