import { simpleParser } from 'mailparser';
import { createMessagingDeps } from '../../email/messaging-deps';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import { HttpClient, type Tenant } from '../../../test/support/app';
import { startEngineHarness, type EngineHarness } from '../../../test/support/automation-engine';
import { assertCatalogued } from '../../../test/support/outbox';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { unique } from '../../../test/support/unique';

/**
 * RECORD_CONTRACT_FIXTURE=1: the contract suites run with plain payloads (withContractStack) and write their
 * workflow histories as replay fixtures.
 */
export const RECORD = process.env.RECORD_CONTRACT_FIXTURE === '1';

/** What a contract suite runs against (withContractStack). */
export interface ContractStack {
  h: EngineHarness;
  smtp: LocalSmtp;
  t: Tenant;
  /** An anonymous client for the public signing pages. */
  pub: HttpClient;
}

/**
 * The set-up the contract suites share: a local SMTP server, the engine harness mailing through it (with `env` over
 * the mail settings and the webhook secret key; plain payloads when RECORD) and its worker, and one tenant, handed to
 * `set` before the file's tests; all closed after them.
 */
export function withContractStack(
  set: (s: ContractStack) => void,
  opts: { tenant: string; env?: Record<string, string> },
): void {
  let stack: Partial<ContractStack> = {};
  beforeAll(async () => {
    const smtp = await startSmtp();
    stack = { smtp };
    const h = await startEngineHarness({
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'CRM <crm@example.test>',
      SECRETS_ENCRYPTION_KEY: 'test-encryption-key-for-webhook-secrets',
      ...opts.env,
      ...(RECORD ? { TEMPORAL_PAYLOAD_KEYS: '' } : {}),
    });
    stack.h = h;
    // The worker's SMTP pool is closed with the harness, so the local SMTP server can stop.
    h.messaging = createMessagingDeps(h.app.config);
    await h.startWorker();
    stack.t = await h.app.tenant(opts.tenant);
    stack.pub = new HttpClient(h.app.baseUrl);
    set(stack as ContractStack);
  }, 90_000);
  afterAll(async () => {
    await stack.h?.close();
    stack.h?.messaging?.close();
    await stack.smtp?.close();
  }, 90_000);
}

/** A contract's outbox events (oldest first), each checked against the event catalog. */
export async function contractEvents(h: EngineHarness, id: string): Promise<OutboxEvent[]> {
  const em = h.app.runtime.deps.orm.em.fork();
  const rows = await em.find(OutboxEvent, { entityType: 'contract', entityId: id }, { orderBy: { id: 'asc' } });
  assertCatalogued(rows);
  return rows;
}

/** Tokens from the signing links e-mailed to `email` (oldest first), read from the local SMTP server. */
export async function linksFor(smtp: LocalSmtp, email: string, path = ''): Promise<string[]> {
  const out: string[] = [];
  for (const m of smtp.received.filter((r) => r.to.includes(email.toLowerCase()))) {
    const parsed = await simpleParser(m.raw);
    const re = new RegExp(
      `/public/contracts/sign/([A-Za-z0-9_-]{43})${path.replace('/', '\\/')}(?![A-Za-z0-9_/-])`,
      'g',
    );
    for (const match of (parsed.text ?? '').matchAll(re)) out.push(match[1]!);
  }
  return out;
}

export const signerEmail = (label: string): string => `${label}-${unique()}@signers.example`.toLowerCase();

/** Creates a contract with the given recipients (defaults: two signers) and returns its id. */
export async function createContract(
  http: HttpClient,
  body: Record<string, unknown> = {},
): Promise<{ id: string; signers: { _id: string; email: string }[] }> {
  const res = await http.post('/api/v1/contracts', {
    title: `Service agreement ${unique()}`,
    signers: [
      { name: 'Ann Signer', email: signerEmail('ann') },
      { name: 'Bo Signer', email: signerEmail('bo') },
    ],
    lineItems: [{ name: 'Setup', quantity: 1, unitPrice: 1000 }],
    ...body,
  });
  if (res.status !== 201) throw new Error(`create contract failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data._id, signers: res.body.data.signers };
}
