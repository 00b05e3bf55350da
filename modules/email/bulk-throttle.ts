/**
 * Per-mailbox pacing of bulk sends in one process: each account gets at most `perSecond` sends
 * started per second (SMTP providers cap senders per mailbox). 0 or less turns pacing off.
 */
export interface SendThrottle {
  /** Resolves when the next send from `key` (an account id) may start. */
  take(key: string): Promise<void>;
  /** Whether sends are paced at all (take may wait). */
  paced: boolean;
}

export function createSendThrottle(perSecond: number): SendThrottle {
  if (!(perSecond > 0)) return { take: async () => undefined, paced: false };
  const gapMs = 1000 / perSecond;
  const next = new Map<string, number>();
  return {
    paced: true,
    async take(key) {
      const now = Date.now();
      const at = Math.max(now, next.get(key) ?? 0);
      next.set(key, at + gapMs);
      if (at > now) await new Promise((r) => setTimeout(r, at - now));
    },
  };
}
