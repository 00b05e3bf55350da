import { simpleParser } from 'mailparser';
import type { HttpClient } from '../../../test/support/app';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { unique } from '../../../test/support/unique';

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
