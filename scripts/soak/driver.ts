// The soak's client: drives companies (automation + webhook), sequence enrollments with waits, contract
// envelopes signed from the invitation e-mails, bookings with approvals and deadlines, and bulk e-mails,
// through both API processes. Every request's final answer is recorded (docs/soak.md "Outcomes").
import { randomUUID } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { delay } from '../../infra/wait';
import type { AppSlot } from './processes';
import type { MailSink } from './sinks';

/** 2xx: acknowledged; 4xx: refused (owes nothing); unknown: no answer or 5xx after the retries. */
export type Outcome = number | 'unknown';
export const ok = (o: Outcome): boolean => typeof o === 'number' && o >= 200 && o < 300;

export interface Requested {
  what: 'company' | 'person' | 'enroll' | 'contract' | 'send' | 'sign' | 'booking' | 'approve' | 'bulk';
  /** The natural key the audit finds the record by (name, e-mail, title, subject, signer e-mail). */
  key: string;
  outcome: Outcome;
  at: number;
}

export interface Fixtures {
  apiKey: string;
  sequenceId: string;
  bookingConfigId: string;
  accountId: string;
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

export class SoakClient {
  private next = 0;
  constructor(
    private readonly apis: AppSlot[],
    private readonly apiKey: string,
  ) {}

  /** GET of a set-up read (throws unless 200). */
  async get(path: string): Promise<any> {
    const res = await fetch(this.apis[0]!.url + path, { headers: { authorization: `Bearer ${this.apiKey}` } });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    return ((await res.json()) as { data: unknown }).data;
  }

  /** POST with an Idempotency-Key, retried (same key, other API) on no answer, 5xx, 429 and in-progress 409. */
  async post(
    path: string,
    body: unknown,
    opts: { auth?: boolean; tries?: number } = {},
  ): Promise<{ outcome: Outcome; data?: any }> {
    const key = randomUUID();
    const tries = opts.tries ?? 5;
    let last: Outcome = 'unknown';
    for (let attempt = 0; attempt < tries; attempt++) {
      const api = this.apis[this.next++ % this.apis.length]!;
      try {
        const res = await fetch(api.url + path, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(opts.auth === false ? {} : { authorization: `Bearer ${this.apiKey}`, 'idempotency-key': key }),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        const json = (await res.json().catch(() => ({}))) as { data?: any; code?: string };
        const inProgress = res.status === 409 && json.code === 'idempotency_in_progress';
        if (!RETRYABLE.has(res.status) && !inProgress) return { outcome: res.status, data: json.data };
        last = 'unknown';
      } catch {
        last = 'unknown';
      }
      await delay(1000 + attempt * 2000);
    }
    return { outcome: last };
  }
}

export interface Rates {
  /** Seconds between two actions of each kind. */
  companyS: number;
  enrollS: number;
  contractS: number;
  bookingS: number;
  bulkS: number;
  bulkRecipients: number;
}

export const ratesFor = (rate: number): Rates => ({
  companyS: 1.5 / rate,
  enrollS: 4 / rate,
  contractS: 8 / rate,
  bookingS: 4 / rate,
  bulkS: 45 / rate,
  bulkRecipients: 40,
});

const SLOT_BASE = Date.UTC(2031, 0, 6);

/** Runs every loop until `until`; returns the requests made (the audit derives what they owe). */
export async function drive(opts: {
  client: SoakClient;
  fixtures: Fixtures;
  sink: MailSink;
  tag: string;
  until: number;
  rates: Rates;
  log: (line: string) => void;
}): Promise<Requested[]> {
  const { client, fixtures, tag, rates } = opts;
  const done: Requested[] = [];
  const record = (what: Requested['what'], key: string, outcome: Outcome): Outcome => {
    done.push({ what, key, outcome, at: Date.now() });
    return outcome;
  };
  const pending = new Set<Promise<unknown>>();
  const spawn = (p: Promise<unknown>): void => {
    const tracked = p
      .catch((err: unknown) => opts.log(`driver task failed: ${String(err)}`))
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  const every = async (seconds: number, act: (n: number) => Promise<unknown>): Promise<void> => {
    let n = 0;
    const started = Date.now();
    while (Date.now() < opts.until) {
      // Bounded: a stalled API must not pile up thousands of open requests.
      if (pending.size < 60) spawn(act(n++));
      const wait = started + n * seconds * 1000 - Date.now();
      await delay(Math.max(50, wait));
    }
  };

  const company = async (n: number) => {
    const name = `Soak Co ${tag}-${n}`;
    record('company', name, (await client.post('/api/v1/companies', { name })).outcome);
  };
  const enroll = async (n: number) => {
    const email = `seq-${tag}-${n}@soak.test`;
    const person = await client.post('/api/v1/people', { firstName: `Seq${n}`, lastName: 'Soak', emails: [{ email }] });
    record('person', email, person.outcome);
    if (!ok(person.outcome)) return;
    const res = await client.post(`/api/v1/sequences/${fixtures.sequenceId}/enroll`, {
      entityType: 'People',
      entityId: person.data._id,
    });
    record('enroll', email, res.outcome);
  };
  const contract = async (n: number) => {
    const title = `Soak contract ${tag}-${n}`;
    const created = await client.post('/api/v1/contracts', {
      title,
      mode: 'parallel',
      signers: [0, 1].map((s) => ({ name: `Signer ${s}`, email: `c${n}-s${s}-${tag}@soak.test` })),
      lineItems: [{ name: 'Service', quantity: 1, unitPrice: 100 }],
    });
    record('contract', title, created.outcome);
    if (!ok(created.outcome)) return;
    const sent = await client.post(`/api/v1/contracts/${created.data._id}/send`, { reminderIntervalHours: null });
    record('send', title, sent.outcome);
  };
  const booking = async (n: number) => {
    const email = `bk-${tag}-${n}@soak.test`;
    const res = await client.post('/api/v1/bookings', {
      configId: fixtures.bookingConfigId,
      slotStart: new Date(SLOT_BASE + n * 30 * 60_000).toISOString(),
      attendeeInfo: { name: `Guest ${tag}-${n}`, email },
    });
    record('booking', email, res.outcome);
    // Every other booking is approved a few seconds later; the rest reach their deadline.
    if (!ok(res.outcome) || n % 2 === 1) return;
    await delay(3000 + (n % 5) * 1000);
    record('approve', email, (await client.post(`/api/v1/bookings/${res.data._id}/approve`, {})).outcome);
  };
  const bulk = async (n: number) => {
    const subject = `Soak bulk ${tag}-${n}`;
    const recipients = Array.from({ length: rates.bulkRecipients }, (_, i) => ({
      email: `b${n}-${i}-${tag}@soak.test`,
    }));
    const res = await client.post('/api/v1/emails/bulk', {
      accountId: fixtures.accountId,
      subject,
      text: 'Hello from the soak',
      recipients,
    });
    record('bulk', subject, res.outcome);
  };

  // Signers sign from their invitation: the link exists only in the e-mail (the latest one counts).
  const signed = new Set<string>();
  const signer = async (): Promise<void> => {
    let scanned = 0;
    while (Date.now() < opts.until + 30_000) {
      const mails = opts.sink.received;
      for (; scanned < mails.length; scanned++) {
        const m = mails[scanned]!;
        if (!m.subject.startsWith('Please sign:') || !m.raw) continue;
        const text = (await simpleParser(m.raw)).text ?? '';
        const token = /\/public\/contracts\/sign\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
        const who = m.to[0] ?? '';
        if (!token || signed.has(who)) continue;
        signed.add(who);
        spawn(
          (async () => {
            await delay(1000 + Math.random() * 4000);
            const res = await client.post(
              `/public/contracts/sign/${token}/sign`,
              { typedName: who },
              { auth: false, tries: 3 },
            );
            record('sign', who, res.outcome);
          })(),
        );
      }
      await delay(1000);
    }
  };

  await Promise.all([
    every(rates.companyS, company),
    every(rates.enrollS, enroll),
    every(rates.contractS, contract),
    every(rates.bookingS, booking),
    every(rates.bulkS, bulk),
    signer(),
  ]);
  await Promise.allSettled([...pending]);
  return done;
}
