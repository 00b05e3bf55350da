import { groupCommit } from '../../../platform/shared/group-commit';

// domain/shared/group-commit.ts: callers' items go out in groups, at most `inFlight` writes at a time.
function recorder(inFlight?: number) {
  const groups: number[][] = [];
  let running = 0;
  let maxRunning = 0;
  const gates: (() => void)[] = [];
  const submit = groupCommit(
    async (items: number[]) => {
      groups.push(items);
      maxRunning = Math.max(maxRunning, ++running);
      await new Promise<void>((r) => gates.push(r));
      running--;
      return items.map((i) => i * 10);
    },
    { inFlight },
  );
  const openAll = async (): Promise<void> => {
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { submit, groups, gates, openAll, max: () => maxRunning };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('groupCommit', () => {
  it('one write at a time by default: what arrives meanwhile goes out together next', async () => {
    const r = recorder();
    const a = [r.submit(1), r.submit(2)];
    await tick();
    const b = [r.submit(3), r.submit(4), r.submit(5)];
    await tick();
    expect(r.groups).toEqual([[1, 2]]);
    await r.openAll();
    await r.openAll();
    expect(await Promise.all([...a, ...b])).toEqual([10, 20, 30, 40, 50]);
    expect(r.groups).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    expect(r.max()).toBe(1);
  });

  it('with inFlight 2 a second group starts while the first is still being written, never a third', async () => {
    const r = recorder(2);
    const all = [r.submit(1)];
    await tick();
    all.push(r.submit(2), r.submit(3));
    await tick();
    all.push(r.submit(4));
    await tick();
    // 1 is being written, 2 and 3 went out beside it, 4 waits for one of them.
    expect(r.groups).toEqual([[1], [2, 3]]);
    await r.openAll();
    await r.openAll();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40]);
    expect(r.groups).toEqual([[1], [2, 3], [4]]);
    expect(r.max()).toBe(2);
  });

  it('a failed write rejects its own group only', async () => {
    let n = 0;
    const submit = groupCommit(async (items: number[]) => {
      if (n++ === 0) throw new Error('boom');
      return items;
    });
    const first = submit(1);
    await expect(first).rejects.toThrow('boom');
    await expect(submit(2)).resolves.toBe(2);
  });
});
