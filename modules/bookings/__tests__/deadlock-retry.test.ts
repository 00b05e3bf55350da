import { isDeadlock, retryOnDeadlock } from '../availability';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('retryOnDeadlock (concurrent bookings of one slot)', () => {
  it('recognises deadlock_detected by code or message, nothing else', () => {
    expect(isDeadlock(deadlock())).toBe(true);
    expect(isDeadlock(new Error('update … - deadlock detected'))).toBe(true);
    expect(isDeadlock(Object.assign(new Error('conflicting key value'), { code: '23P01' }))).toBe(false);
    expect(isDeadlock(null)).toBe(false);
  });

  it('runs a deadlock victim again, clearing state before each retry, and returns its result', async () => {
    let calls = 0;
    let cleared = 0;
    const result = await retryOnDeadlock(
      async () => {
        calls += 1;
        if (calls < 3) throw deadlock();
        return 'booked';
      },
      () => (cleared += 1),
    );
    expect(result).toBe('booked');
    expect([calls, cleared]).toEqual([3, 2]);
  });

  it('gives up after the given number of tries with the deadlock, and never retries other errors', async () => {
    let calls = 0;
    await expect(
      retryOnDeadlock(
        async () => {
          calls += 1;
          throw deadlock();
        },
        () => undefined,
        3,
      ),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(calls).toBe(3);
    calls = 0;
    const conflict = Object.assign(new Error('conflicting key value violates exclusion constraint'), { code: '23P01' });
    await expect(
      retryOnDeadlock(
        async () => {
          calls += 1;
          throw conflict;
        },
        () => undefined,
      ),
    ).rejects.toBe(conflict);
    expect(calls).toBe(1);
  });
});
