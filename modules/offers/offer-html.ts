import { escapeHtml } from '../../platform/shared/format.pure';
import type { PublicOffer } from './offer-public.service';

/**
 * The public offer page. Everything from the offer is escaped (names, lines, terms): the
 * recipient's browser never runs text that a workspace user typed. Forms post to accept/decline.
 */
const e = (v: unknown): string => escapeHtml(v === null || v === undefined ? '' : String(v));
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const color = (v: unknown, fallback: string): string =>
  typeof v === 'string' && /^#[0-9a-fA-F]{3,8}$/.test(v) ? v : fallback;

function money(value: unknown, currency: string): string {
  const n = typeof value === 'number' ? value : 0;
  return `${n.toLocaleString('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
}

export function renderOfferHtml(view: PublicOffer, opts: { actionBase: string | null; message?: string }): string {
  const o = view.offer;
  const currency = String(o.currency ?? '');
  const seller = obj(o.seller);
  const branding = obj(seller.branding);
  const company = obj(seller.companyInfo);
  const customer = obj(o.customer);
  const acceptance = obj(o.acceptance);
  const primary = color(branding.primaryColor, '#1f2937');
  const lines = (Array.isArray(o.lineItems) ? o.lineItems : [])
    .map((raw) => {
      const l = obj(raw);
      return (
        `<tr><td>${e(l.name)}${l.description ? `<div class="desc">${e(l.description)}</div>` : ''}</td><td class="n">${e(l.quantity)} ${e(l.unit)}</td>` +
        `<td class="n">${e(money(l.unitPrice, currency))}</td><td class="n">${e(l.vatRate)}%</td><td class="n">${e(money(l.net, currency))}</td></tr>`
      );
    })
    .join('');
  const customerName =
    obj(customer.company).name ??
    [obj(customer.person).firstName, obj(customer.person).lastName].filter(Boolean).join(' ');
  const actions =
    !opts.actionBase || !view.canAccept
      ? ''
      : `
<section class="actions">
  <form method="post" action="${e(opts.actionBase)}/accept">
    <label>Your name <input name="name" maxlength="200" ${acceptance.requireName === false ? '' : 'required'}></label>
    ${acceptance.requireEmail === true ? '<label>E-mail <input name="email" type="email" maxlength="320" required></label>' : ''}
    <button type="submit">${e(acceptance.acceptButtonText || 'Accept offer')}</button>
  </form>
  ${
    view.canDecline
      ? `<form method="post" action="${e(opts.actionBase)}/decline">
    <label>Reason <input name="reason" maxlength="5000" ${acceptance.requireDeclineReason === true ? 'required' : ''}></label>
    <button type="submit" class="secondary">${e(acceptance.declineButtonText || 'Decline')}</button>
  </form>`
      : ''
  }
</section>`;
  const state = view.preview
    ? '<p class="banner">Preview: this is how the offer will look once it is sent.</p>'
    : view.response
      ? `<p class="banner">This offer was ${e(view.response.decision)}${view.response.name ? ` by ${e(view.response.name)}` : ''} on ${e(view.response.at.slice(0, 10))}.</p>`
      : view.status !== 'sent'
        ? `<p class="banner">This offer is ${e(view.status)}.</p>`
        : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${e(view.offerNumber ? `${view.offerNumber} · ${view.title}` : view.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:860px;margin:2rem auto;padding:0 1rem;color:#111}h1{color:${primary}}
table{width:100%;border-collapse:collapse}td,th{padding:.4rem;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}
.desc{color:#555;font-size:.9em}.banner{background:#f3f4f6;padding:.6rem;border-left:4px solid ${primary}}.totals td{border:0}
form{margin:1rem 0}button{background:${primary};color:#fff;border:0;padding:.5rem 1rem;cursor:pointer}button.secondary{background:#6b7280}</style></head>
<body>
${opts.message ? `<p class="banner">${e(opts.message)}</p>` : ''}${state}
<header><strong>${e(company.name)}</strong></header>
<h1>${e(view.title)}</h1>
<p>${view.offerNumber ? `Offer ${e(view.offerNumber)} · ` : ''}${customerName ? `For ${e(customerName)} · ` : ''}${view.validUntil ? `Valid until ${e(view.validUntil)}` : ''}</p>
<table><thead><tr><th>Item</th><th class="n">Quantity</th><th class="n">Unit price</th><th class="n">VAT</th><th class="n">Amount</th></tr></thead><tbody>${lines}</tbody></table>
<table class="totals"><tr><td class="n">Subtotal</td><td class="n">${e(money(o.subtotal, currency))}</td></tr>
<tr><td class="n">VAT</td><td class="n">${e(money(o.vatAmount, currency))}</td></tr>
<tr><td class="n"><strong>Total</strong></td><td class="n"><strong>${e(money(o.total, currency))}</strong></td></tr></table>
${o.terms ? `<h2>Terms</h2><p>${e(o.terms)}</p>` : ''}${o.paymentTerms ? `<h2>Payment</h2><p>${e(o.paymentTerms)}</p>` : ''}
${acceptance.termsText ? `<p>${e(acceptance.termsText)}</p>` : ''}
${actions}
</body></html>`;
}
