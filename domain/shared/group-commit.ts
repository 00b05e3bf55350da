/**
 * Group commit: each caller submits one item and waits for its own answer; what is submitted while a
 * write is under way goes out together in the next one. Many callers, one statement at a time.
 */
export function groupCommit<T, R>(write: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let pending: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  let running = false;
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
    running = false;
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (running) return;
      running = true;
      // Whatever else is submitted in this turn joins the first write.
      queueMicrotask(() => void run());
    });
}
