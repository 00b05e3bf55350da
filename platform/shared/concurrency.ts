/**
 * Runs `fn` over `items` with at most `limit` calls in flight; results in input order. A rejected
 * call rejects the whole map (callers that must go on catch inside `fn`).
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane));
  return out;
}

/**
 * A limit shared by independent callers: at most `limit` calls of `run` in flight at once, the
 * others wait in arrival order (e.g. one process-wide cap across batches that overlap).
 */
export function createLimiter(limit: number): { run<R>(fn: () => Promise<R>): Promise<R> } {
  const max = Math.max(1, limit);
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(fn) {
      if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await fn();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
  };
}
