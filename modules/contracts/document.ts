import { createHash } from 'node:crypto';
import type { Contract, ContractSigner } from './contract.entity';
import { fromMinor, lineView } from './money';
import type { ContractDocumentView } from './contracts.views';

/** The signed content: what the document hash covers (fixed when the envelope is sent). */
export function documentContent(c: Contract, signers: readonly ContractSigner[]): ContractDocumentView {
  return {
    contractId: c._id,
    title: c.title,
    term: c.term ?? null,
    lineItems: c.lineItems.map(lineView),
    subtotal: fromMinor(c.subtotalMinor),
    vatAmount: fromMinor(c.vatMinor),
    total: fromMinor(c.totalMinor),
    signers: signers.map((s) => ({ order: s.position, name: s.name, email: s.email, title: s.title, role: s.role })),
  };
}

export const documentSha256 = (c: Contract, signers: readonly ContractSigner[]): string =>
  createHash('sha256')
    .update(JSON.stringify(documentContent(c, signers)), 'utf8')
    .digest('hex');

const escapeHtml = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

/** The signer's view of the document as a self-contained HTML page; every value is escaped. */
export function renderDocumentHtml(
  doc: ReturnType<typeof documentContent>,
  signer: { name: string; status: string; canSign: boolean },
  hash: string | null | undefined,
): string {
  const rows = doc.lineItems
    .map(
      (l) =>
        `<tr><td>${escapeHtml(l.name ?? l.description)}</td><td>${escapeHtml(l.quantity)} ${escapeHtml(l.unit ?? '')}</td><td>${escapeHtml(l.unitPrice.toFixed(2))}</td><td>${escapeHtml(l.vatRate)}%</td><td>${escapeHtml(l.total.toFixed(2))}</td></tr>`,
    )
    .join('');
  const signers = doc.signers
    .filter((s) => s.role === 'signer')
    .map((s) => `<li>${escapeHtml(s.name)}${s.title ? `, ${escapeHtml(s.title)}` : ''}</li>`)
    .join('');
  const term = doc.term
    ? `<p>Term: ${escapeHtml(doc.term.startDate ?? '')} – ${escapeHtml(doc.term.endDate ?? '')}</p>`
    : '';
  const action = signer.canSign
    ? `<p>Sign by POSTing <code>{"typedName": "…"}</code> or <code>{"signatureImage": "data:image/png;base64,…"}</code> to this address + <code>/sign</code>; decline with <code>{"reason": "…"}</code> to <code>/decline</code>.</p>`
    : `<p>Your status: ${escapeHtml(signer.status)}</p>`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(doc.title)}</title></head><body>` +
    `<h1>${escapeHtml(doc.title)}</h1><p>For ${escapeHtml(signer.name)}</p>${term}` +
    `<table><thead><tr><th>Item</th><th>Quantity</th><th>Unit price</th><th>VAT</th><th>Total</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p>Subtotal ${escapeHtml(doc.subtotal.toFixed(2))} · VAT ${escapeHtml(doc.vatAmount.toFixed(2))} · Total ${escapeHtml(doc.total.toFixed(2))}</p>` +
    `<h2>Signers</h2><ol>${signers}</ol>${hash ? `<p>Document SHA-256: <code>${escapeHtml(hash)}</code></p>` : ''}${action}</body></html>`
  );
}
