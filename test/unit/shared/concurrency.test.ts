import { createLimiter, mapLimited } from '../../../platform/shared/concurrency';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('createLimiter', () => {
  it('keeps at most `limit` calls in flight across independent callers, in arrival order', async () => {
    const limiter = createLimiter(3);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const release: (() => void)[] = [];
    const call = (i: number) =>
      limiter.run(async () => {
        started.push(i);
        active++;
        peak = Math.max(peak, active);
        await new Promise<void>((r) => release.push(r));
        active--;
        return i;
      });
    // Two "batches" sharing the limiter.
    const a = Promise.all([0, 1, 2, 3].map(call));
    const b = Promise.all([4, 5, 6].map(call));
    await tick();
    expect(started).toEqual([0, 1, 2]);
    while (release.length) {
      release.shift()!();
      await tick();
      await tick();
    }
    expect(await a).toEqual([0, 1, 2, 3]);
    expect(await b).toEqual([4, 5, 6]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(peak).toBe(3);
  });

  it('frees the slot when a call throws', async () => {
    const limiter = createLimiter(1);
    await expect(
      limiter.run(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
  });
});

describe('mapLimited', () => {
  it('returns results in input order', async () => {
    expect(
      await mapLimited([3, 1, 2], 2, async (n) => {
        await new Promise((r) => setTimeout(r, n));
        return n * 10;
      }),
    ).toEqual([30, 10, 20]);
  });
});
