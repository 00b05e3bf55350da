import { createBatcher } from '../../../search/batcher';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('createBatcher: per-event handoff, batched writes, outcome per batch', () => {
  it('items handed over together are flushed as one batch', async () => {
    const flushed: number[][] = [];
    const b = createBatcher<number>(async (items) => void flushed.push(items), { idleMs: 5, maxWaitMs: 100 });
    await Promise.all([1, 2, 3].map((n) => b.add(n)));
    expect(flushed).toEqual([[1, 2, 3]]);
  });

  it('flushes at maxBatch without waiting, and splits larger groups', async () => {
    const flushed: number[][] = [];
    const b = createBatcher<number>(async (items) => void flushed.push(items), { maxBatch: 2, idleMs: 10_000, maxWaitMs: 10_000 });
    await Promise.all([1, 2, 3, 4].map((n) => b.add(n)));
    expect(flushed).toEqual([[1, 2], [3, 4]]);
  });

  it('an item waits at most maxWaitMs although others keep arriving', async () => {
    const flushedAt: number[] = [];
    const b = createBatcher<number>(async () => void flushedAt.push(Date.now()), { idleMs: 30, maxWaitMs: 60 });
    const started = Date.now();
    const first = b.add(0);
    for (let i = 1; i < 8; i++) {
      await tick(15);
      void b.add(i).catch(() => undefined);
    }
    await first;
    expect(flushedAt[0] - started).toBeLessThan(200);
    expect(flushedAt[0] - started).toBeGreaterThanOrEqual(55);
  });

  it('a failed flush rejects every item of its batch, and only those', async () => {
    let calls = 0;
    const b = createBatcher<string>(async (items) => {
      calls++;
      if (items.includes('bad')) throw new Error('meilisearch down');
    }, { idleMs: 5 });
    const results = await Promise.allSettled([b.add('bad'), b.add('other')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(b.add('good')).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });

  it('one flush at a time: items arriving during a flush form the next batch', async () => {
    const flushed: string[][] = [];
    let release: () => void = () => undefined;
    const b = createBatcher<string>(async (items) => {
      flushed.push(items);
      if (flushed.length === 1) await new Promise<void>((r) => (release = r));
    }, { idleMs: 1 });
    const first = b.add('a');
    await tick(20);
    const later = [b.add('b'), b.add('c')];
    await tick(20);
    expect(flushed).toEqual([['a']]);
    expect(b.pending).toBe(2);
    release();
    await Promise.all([first, ...later]);
    expect(flushed).toEqual([['a'], ['b', 'c']]);
  });
});
