// platform/intake/group-commit.ts: calls arriving together share one batch; each is answered with its
// own outcome; a failed statement is retried item by item, a lost connection fails every call.
import { groupCommit } from '../../../platform/intake/group-commit';

const statementError = (message: string): Error => Object.assign(new Error(message), { code: '22P02' });
const tick = () => new Promise((r) => setImmediate(r));

describe('groupCommit', () => {
  it('a lone call goes at once; calls made together share one batch, each gets its own outcome', async () => {
    const batches: number[][] = [];
    const submit = groupCommit(async (items: number[]) => {
      batches.push(items);
      return items.map((i) => i * 10);
    });
    expect(await submit(1)).toBe(10);
    expect(await Promise.all([2, 3, 4, 5].map(submit))).toEqual([20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it('keeps at most maxInFlight batches running; what arrives meanwhile goes out together after, in batches of maxBatch', async () => {
    const releases: (() => void)[] = [];
    const batches: number[][] = [];
    let running = 0;
    let most = 0;
    const submit = groupCommit(
      async (items: number[]) => {
        batches.push(items);
        most = Math.max(most, ++running);
        await new Promise<void>((r) => releases.push(r));
        running--;
        return items;
      },
      { maxInFlight: 1, maxBatch: 3 },
    );
    const first = submit(0);
    await tick();
    const rest = [1, 2, 3, 4, 5].map(submit);
    await tick();
    expect(batches).toEqual([[0]]);
    while (releases.length) {
      releases.shift()!();
      await tick();
      await tick();
    }
    expect(await first).toBe(0);
    expect(await Promise.all(rest)).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[0], [1, 2, 3], [4, 5]]);
    expect(most).toBe(1);
  });

  it('a batch that fails with a statement error runs again item by item: only the bad item fails', async () => {
    const batches: string[][] = [];
    const submit = groupCommit(async (items: string[]) => {
      batches.push(items);
      if (items.includes('bad')) throw statementError('invalid input');
      return items.map((s) => s.toUpperCase());
    });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map(submit));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'A',
      'invalid input',
      'C',
    ]);
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('a failure that is not a statement error (the outcome is unknown) is every call’s answer, nothing is retried', async () => {
    let calls = 0;
    const submit = groupCommit(async (_items: number[]): Promise<number[]> => {
      calls++;
      throw new Error('Connection terminated unexpectedly');
    });
    const results = await Promise.allSettled([1, 2, 3].map(submit));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(calls).toBe(1);
  });

  it('refuses a batch answered with the wrong number of outcomes', async () => {
    const submit = groupCommit(async (items: number[]) => items.slice(1));
    const results = await Promise.allSettled([1, 2].map(submit));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
