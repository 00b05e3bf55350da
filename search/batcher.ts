export interface BatcherOptions {
  /** Flush as soon as this many items wait (default 500). */
  maxBatch?: number;
  /** Longest an item waits for companions (default 100 ms). */
  maxWaitMs?: number;
  /** Flush once no new item arrived for this long (default 10 ms). */
  idleMs?: number;
}

export interface Batcher<T> {
  /** Resolves when the batch holding `item` was flushed; rejects with the batch's error. */
  add(item: T): Promise<void>;
  readonly pending: number;
}

interface Entry<T> { item: T; at: number; resolve: () => void; reject: (err: unknown) => void }

/**
 * Collects items handed over one by one (the dispatcher calls subscribers per event) into batches.
 * One flush runs at a time, so items arriving during a flush form the next batch, and each
 * caller learns the outcome of its own batch: an item counts as done only once it was written.
 */
export function createBatcher<T>(flush: (items: T[]) => Promise<void>, opts: BatcherOptions = {}): Batcher<T> {
  const maxBatch = Math.max(1, opts.maxBatch ?? 500);
  const maxWaitMs = opts.maxWaitMs ?? 100;
  const idleMs = opts.idleMs ?? 10;
  const queue: Entry<T>[] = [];
  let lastAddAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let flushing = false;

  const schedule = (): void => {
    if (flushing || queue.length === 0) return;
    if (timer) clearTimeout(timer);
    timer = null;
    if (queue.length >= maxBatch) return void run();
    const due = Math.min(queue[0].at + maxWaitMs, lastAddAt + idleMs);
    timer = setTimeout(() => void run(), Math.max(0, due - Date.now()));
  };

  async function run(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    flushing = true;
    const batch = queue.splice(0, maxBatch);
    try {
      await flush(batch.map((e) => e.item));
      for (const e of batch) e.resolve();
    } catch (err) {
      for (const e of batch) e.reject(err);
    } finally {
      flushing = false;
      schedule();
    }
  }

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        lastAddAt = Date.now();
        queue.push({ item, at: lastAddAt, resolve, reject });
        schedule();
      });
    },
    get pending() {
      return queue.length;
    },
  };
}
