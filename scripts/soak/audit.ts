// After the settle period: what the requests owe (from the database's final state, cross-checked with the
// answers the driver got) against what the mail sink and the webhook receiver received (docs/soak.md).
import pg from 'pg';
import type { Expected, Observed, Timer } from './count';
import { ok, type Requested } from './driver';
import type { Hook, SinkMail } from './sinks';

/** One kind of mail per subject shape; the key names the recipient and what the mail is about. */
export function mailKey(to: string, subject: string): string {
  const m = (re: RegExp): RegExpExecArray | null => re.exec(subject);
  let what: string;
  let r: RegExpExecArray | null;
  if ((r = m(/^Soak bulk (\S+)/))) what = `bulk:${r[1]}`;
  else if ((r = m(/^Soak step ([AB])$/))) what = `seq:${r[1]}`;
  else if ((r = m(/^Please sign: (.+)$/))) what = `invite:${r[1]}`;
  else if ((r = m(/^Signed: (.+)$/))) what = `signed:${r[1]}`;
  else if (m(/^Booking request received:/)) what = 'booking:received';
  else if (m(/^Confirmed:/)) what = 'booking:confirmed';
  else if (m(/^Booking declined:/)) what = 'booking:declined';
  else if ((r = m(/^(Reminder: )?Booking awaiting approval: ([^,]+),/)))
    what = `${r[1] ? 'reminder' : 'approval'}:${r[2]}`;
  else what = `other:${subject}`;
  return `mail:${to.toLowerCase()}:${what}`;
}

/** Every recipient of every accepted message is one observation; two messages are two side effects. */
export function mailObservations(mails: readonly SinkMail[]): Observed[] {
  return mails.flatMap((m, i) => m.to.map((to) => ({ key: mailKey(to, m.subject), identity: `msg${i}` })));
}

/**
 * Webhook subscription deliveries keyed by event and record (company name, booking or contract id), identity
 * the webhook-id; automation send_webhook calls keyed by their payload, identity the idempotency-key.
 */
export function hookObservations(hooks: readonly Hook[]): Observed[] {
  const out: Observed[] = [];
  for (const h of hooks) {
    let body: any;
    try {
      body = JSON.parse(h.body);
    } catch {
      out.push({ key: `hook:unparsable:${h.path}`, identity: String(h.at) });
      continue;
    }
    if (h.path === '/hooks') {
      const type = String(body.type);
      const d = body.data ?? {};
      const id = type.startsWith('company.')
        ? d.company?.name
        : type.startsWith('booking.')
          ? d.booking?._id
          : (d.contractId ?? d.contract?._id);
      out.push({ key: `hook:${type}:${String(id)}`, identity: h.headers['webhook-id'] ?? String(h.at) });
    } else if (h.path === '/auto/company') {
      out.push({ key: `auto:company:${String(body.name)}`, identity: h.headers['idempotency-key'] ?? String(h.at) });
    } else if (h.path === '/auto/booking-approved') {
      out.push({
        key: `auto:booking-approved:${String(body.email)}`,
        identity: h.headers['idempotency-key'] ?? String(h.at),
      });
    } else out.push({ key: `hook:unknown-path:${h.path}`, identity: String(h.at) });
  }
  return out;
}

export interface Audit {
  expected: Expected[];
  /** Requests acknowledged (2xx) whose record the database does not hold. */
  recordsLost: string[];
  stuck: Record<string, number>;
  timers: Timer[];
  notes: string[];
}

export async function audit(databaseUrl: string, workspaceId: string, requests: readonly Requested[]): Promise<Audit> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const q = async <T = any>(sql: string): Promise<T[]> => (await db.query(sql, [workspaceId])).rows as T[];
  // Two records may owe the same effect (a retried enroll that made a second enrollment): the stronger wins.
  const owed = new Map<string, Expected>();
  const owe = (key: string, kind: string, sure = true): void => {
    const prior = owed.get(key);
    if (!prior || (sure && prior.obligation === 'at_most_once'))
      owed.set(key, { key, kind, obligation: sure ? 'exactly_once' : 'at_most_once' });
  };
  const recordsLost: string[] = [];
  const acked = (what: Requested['what']) => requests.filter((r) => r.what === what && ok(r.outcome)).map((r) => r.key);
  const missing = (what: Requested['what'], found: Set<string>) => {
    for (const key of acked(what)) if (!found.has(key)) recordsLost.push(`${what}:${key}`);
  };
  try {
    const companies = await q<{ name: string }>(`select name from company where workspace_id = $1`);
    for (const c of companies) {
      owe(`hook:company.created:${c.name}`, 'webhook company.created');
      owe(`auto:company:${c.name}`, 'automation on record_created');
    }
    missing('company', new Set(companies.map((c) => c.name)));

    const enrollments = await q<{ email: string; status: string }>(
      `select lower(p.emails->0->>'email') as email, e.status from sequence_enrollment e
       join person p on p.id = e.entity_id where e.workspace_id = $1`,
    );
    // A completed run owes both mails; one that exited (e.g. its workflow never started) at most what it reached.
    for (const e of enrollments)
      for (const step of ['A', 'B']) owe(`mail:${e.email}:seq:${step}`, `sequence mail ${step}`, e.status !== 'exited');
    missing('enroll', new Set(enrollments.map((e) => e.email)));

    const contracts = await q<{ id: string; title: string; status: string; email: string; signer_status: string }>(
      `select c.id, c.title, c.status, s.email, s.status as signer_status from contracts c
       join contract_signers s on s.contract_id = c.id where c.workspace_id = $1`,
    );
    const byContract = new Map<string, typeof contracts>();
    for (const r of contracts) byContract.set(r.id, [...(byContract.get(r.id) ?? []), r]);
    const sentTitles = new Set<string>();
    const signedEmails = new Set<string>();
    for (const [id, signers] of byContract) {
      const c = signers[0]!;
      if (c.status === 'draft') continue;
      sentTitles.add(c.title);
      owe(`hook:contract.sent:${id}`, 'webhook contract.sent');
      if (c.status === 'accepted') owe(`hook:contract.completed:${id}`, 'webhook contract.completed');
      for (const s of signers) {
        owe(`mail:${s.email.toLowerCase()}:invite:${c.title}`, 'contract invitation');
        if (c.status === 'accepted') owe(`mail:${s.email.toLowerCase()}:signed:${c.title}`, 'contract signed copy');
        if (s.signer_status === 'signed') signedEmails.add(s.email.toLowerCase());
      }
    }
    missing('send', sentTitles);
    missing('sign', signedEmails);

    const owners = (
      await q<{ email: string }>(`select email from app_user where workspace_id = $1 and role in ('owner', 'admin')`)
    ).map((u) => u.email.toLowerCase());
    const bookings = await q<{
      id: string;
      status: string;
      name: string;
      email: string;
      decided_by: string | null;
      due: Date | null;
      decided: Date | null;
    }>(
      `select id, status, attendee_info->>'name' as name, lower(attendee_info->>'email') as email, decided_by,
              approval_deadline_at as due, decided_at as decided from booking where workspace_id = $1`,
    );
    const approvedEmails = new Set<string>();
    for (const b of bookings) {
      owe(`hook:booking.created:${b.id}`, 'webhook booking.created');
      owe(`mail:${b.email}:booking:received`, 'booking request received mail');
      // The approvers' notice is skipped when the booking is decided before it goes out: 0 or 1.
      for (const o of owners) owe(`mail:${o}:approval:${b.name}`, 'booking approver notice', false);
      if (b.status === 'approved') {
        approvedEmails.add(b.email);
        owe(`hook:booking.approved:${b.id}`, 'webhook booking.approved');
        owe(`auto:booking-approved:${b.email}`, 'automation on booking_approved');
        owe(`mail:${b.email}:booking:confirmed`, 'booking confirmed mail');
      } else if (b.status === 'rejected') {
        owe(`hook:booking.rejected:${b.id}`, 'webhook booking.rejected');
        owe(`mail:${b.email}:booking:declined`, 'booking declined mail');
      }
    }
    missing('booking', new Set(bookings.map((b) => b.email)));
    missing('approve', approvedEmails);

    const bulks = await q<{ subject: string; email: string; status: string }>(
      `select b.subject, lower(r.email) as email, r.status from email_bulk b join email_bulk_recipient r on r.bulk_id = b.id
       where b.workspace_id = $1`,
    );
    // `unknown`: the message may have reached the server when the worker died; 0 or 1 is right.
    for (const r of bulks) owe(mailKey(r.email, r.subject), 'bulk mail', r.status !== 'unknown');
    missing('bulk', new Set(bulks.map((b) => b.subject)));

    const count = async (sql: string): Promise<number> => {
      try {
        return Number((await q<{ n: string }>(sql))[0]?.n ?? 0);
      } catch {
        return -1;
      }
    };
    const stuck: Record<string, number> = {
      automation_running: await count(
        `select count(*) n from automation_execution where workspace_id = $1 and status = 'running'`,
      ),
      enrollment_active: await count(
        `select count(*) n from sequence_enrollment where workspace_id = $1 and status in ('active', 'paused')`,
      ),
      booking_pending: await count(`select count(*) n from booking where workspace_id = $1 and status = 'pending'`),
      contract_signed_not_completed: await count(
        `select count(*) n from contracts c where c.workspace_id = $1 and c.status = 'sent'
         and not exists (select 1 from contract_signers s where s.contract_id = c.id and s.status <> 'signed')`,
      ),
      bulk_not_finished: await count(
        `select count(*) n from email_bulk where workspace_id = $1 and status in ('queued', 'sending')`,
      ),
      bulk_recipient_pending: await count(
        `select count(*) n from email_bulk_recipient where workspace_id = $1 and status = 'pending'`,
      ),
      webhook_delivery_open: await count(
        `select count(*) n from webhook_delivery where workspace_id = $1 and status in ('pending', 'retrying')`,
      ),
      outbox_unprocessed: await count(
        `select count(*) n from outbox_event where workspace_id = $1 and processed_at is null`,
      ),
    };
    const notes: string[] = [];
    const extra = await q<{ n: string }>(
      `select count(*) - count(distinct entity_id) n from sequence_enrollment where workspace_id = $1`,
    );
    if (Number(extra[0]?.n) > 0)
      notes.push(`${extra[0]!.n} extra enrollment(s) of an already enrolled person (a retried enroll)`);
    for (const [k, v] of Object.entries(stuck)) if (v < 0) notes.push(`stuck query ${k} failed (schema changed?)`);

    const waits = await q<{ id: string; due: string; ended: Date | null }>(
      `select id, output->>'until' as due, ended_at as ended from sequence_step
       where workspace_id = $1 and node_type = 'wait' and output ? 'until'`,
    );
    const timers: Timer[] = [
      ...waits.map((w) => ({
        id: `wait:${w.id}`,
        due: Date.parse(w.due),
        fired: w.ended ? new Date(w.ended).getTime() : null,
      })),
      ...bookings
        .filter((b) => b.due && b.decided_by === null && (b.status === 'rejected' || b.status === 'approved'))
        .map((b) => ({
          id: `deadline:${b.id}`,
          due: new Date(b.due!).getTime(),
          fired: new Date(b.decided!).getTime(),
        })),
    ];
    return { expected: [...owed.values()], recordsLost, stuck, timers, notes };
  } finally {
    await db.end();
  }
}
