// Options and the fault schedule of the soak (pure; tested in test/unit/soak/count.test.ts).

export type FaultKind = 'api' | 'worker' | 'temporal' | 'meilisearch' | 'postgres' | 'mail';
export const FAULT_KINDS: readonly FaultKind[] = ['api', 'worker', 'temporal', 'meilisearch', 'postgres', 'mail'];

export interface Fault {
  kind: FaultKind;
  /** Ms after the driving phase started. */
  at: number;
  /** How long it stays down before the restart (mail: how long the SMTP server is stopped). */
  downMs: number;
}

export interface SoakOptions {
  /** Driving phase length. */
  minutes: number;
  /** Quiet time after driving and the last restart, for retries and timers to finish. */
  settleSeconds: number;
  seed: number;
  /** Multiplies the request rates of the driver. */
  rate: number;
  /** Rounds of faults (every kind once per round). */
  rounds: number;
  basePort: number;
  keepData: boolean;
}

export function parseSoakArgs(argv: readonly string[]): SoakOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
    return argv[i + 1];
  };
  const num = (name: string, fallback: number, min: number, max: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new Error(`--${name} must be a number in [${min}, ${max}], got "${raw}"`);
    return n;
  };
  const short = argv.includes('--short');
  const minutes = num('minutes', short ? 2 : 10, 1, 240);
  return {
    minutes,
    settleSeconds: num('settle', short ? 90 : 120, 30, 3600),
    seed: Math.floor(num('seed', Date.now() % 1_000_000, 0, 2 ** 31)),
    rate: num('rate', 1, 0.1, 20),
    rounds: Math.floor(num('rounds', Math.max(1, Math.floor(minutes / 5)), 1, 100)),
    basePort: Math.floor(num('port', 46000, 1024, 65000)),
    keepData: argv.includes('--keep-data'),
  };
}

/** Deterministic PRNG (mulberry32): the same --seed gives the same schedule. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Every kind once per round, in random order, one fault at a time: the driving phase is cut into equal slots
 * (the first 10% left quiet for a baseline) and each fault starts at a random point of its slot, early enough
 * that it is over (down time + `restartAllowanceMs`) before the slot ends.
 */
export function planFaults(
  random: () => number,
  opts: { durationMs: number; rounds: number; restartAllowanceMs: number; kinds?: readonly FaultKind[] },
): Fault[] {
  const kinds = opts.kinds ?? FAULT_KINDS;
  const order: FaultKind[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    const round = [...kinds];
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [round[i], round[j]] = [round[j]!, round[i]!];
    }
    order.push(...round);
  }
  const start = opts.durationMs * 0.1;
  const slot = (opts.durationMs - start) / order.length;
  return order.map((kind, i) => {
    // Mail outages are long (retries must outlast them); process kills are short.
    const downMs = kind === 'mail' ? Math.min(slot * 0.6, 30_000 + random() * 60_000) : 2_000 + random() * 6_000;
    const room = Math.max(0, slot - downMs - opts.restartAllowanceMs);
    return { kind, at: Math.round(start + i * slot + random() * room), downMs: Math.round(downMs) };
  });
}
