import { createHash } from 'node:crypto';
// pdf-lib is loaded when a PDF is rendered, not when the worker starts (bench:worker-start).
import type { Color, PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { Contract, ContractSigner } from './contract.entity';
import { documentContent } from './document';

// Standard fonts encode WinAnsi only: anything outside Latin-1 prints as "?" rather than failing the run.
const printable = (s: unknown): string => String(s ?? '').replace(/[^\x20-\x7E\xA0-\xFF]/g, '?');

class Writer {
  page!: PDFPage;
  y = 0;
  constructor(
    readonly pdf: PDFDocument,
    readonly font: PDFFont,
    readonly bold: PDFFont,
    readonly color: Color,
  ) {
    this.newPage();
  }
  newPage(): void {
    this.page = this.pdf.addPage([595, 842]);
    this.y = 790;
  }
  line(text: string, opts: { size?: number; bold?: boolean; gap?: number } = {}): void {
    const size = opts.size ?? 10;
    const font = opts.bold ? this.bold : this.font;
    // Wrap at the page width (a crude character budget is enough for a data sheet).
    const max = Math.floor(480 / (size * 0.5));
    const words = printable(text).split(' ');
    let current = '';
    const flush = () => {
      if (this.y < 60) this.newPage();
      this.page.drawText(current, { x: 50, y: this.y, size, font, color: this.color });
      this.y -= size + (opts.gap ?? 4);
      current = '';
    };
    for (const w of words) {
      if ((current + ' ' + w).length > max && current) flush();
      current = current ? `${current} ${w}` : w.slice(0, max * 2);
    }
    flush();
  }
}

const money = (n: number) => n.toFixed(2);

/** The signed PDF: the document, each signature, and an audit trail page. Returns the bytes and their SHA-256. */
export async function renderSignedPdf(
  c: Contract,
  signers: readonly ContractSigner[],
  completedAt: Date,
): Promise<{ pdf: Uint8Array; sha256: string }> {
  const { PDFDocument, StandardFonts, rgb } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  pdf.setTitle(printable(c.title));
  pdf.setCreationDate(completedAt);
  pdf.setModificationDate(completedAt);
  pdf.setProducer('CRM Workspace API');
  const w = new Writer(
    pdf,
    await pdf.embedFont(StandardFonts.Helvetica),
    await pdf.embedFont(StandardFonts.HelveticaBold),
    rgb(0, 0, 0),
  );
  const doc = documentContent(c, signers);
  w.line(doc.title, { size: 18, bold: true, gap: 12 });
  if (doc.term) w.line(`Term: ${doc.term.startDate ?? '-'} to ${doc.term.endDate ?? '-'}`);
  w.line(' ');
  for (const l of doc.lineItems)
    w.line(
      `${l.name ?? l.description ?? ''}: ${l.quantity}${l.unit ? ' ' + l.unit : ''} x ${money(l.unitPrice)} (VAT ${l.vatRate}%) = ${money(l.total)}`,
    );
  w.line(`Subtotal ${money(doc.subtotal)}   VAT ${money(doc.vatAmount)}   Total ${money(doc.total)}`, {
    bold: true,
    gap: 16,
  });
  w.line('Signatures', { size: 14, bold: true, gap: 8 });
  for (const s of signers.filter((x) => x.role === 'signer')) {
    w.line(`${s.name}${s.title ? ', ' + s.title : ''}: signed ${s.signedAt?.toISOString() ?? '-'}`, { bold: true });
    if (s.signatureType === 'drawn' && s.signatureImage) {
      const png = await pdf.embedPng(Buffer.from(s.signatureImage.slice(s.signatureImage.indexOf(',') + 1), 'base64'));
      const scale = Math.min(1, 200 / png.width, 60 / png.height);
      if (w.y < 120) w.newPage();
      w.page.drawImage(png, {
        x: 50,
        y: w.y - png.height * scale,
        width: png.width * scale,
        height: png.height * scale,
      });
      w.y -= png.height * scale + 10;
    } else {
      w.line(`/${s.signatureName ?? s.name}/`, { size: 14, gap: 10 });
    }
  }

  w.newPage();
  w.line('Audit trail', { size: 16, bold: true, gap: 10 });
  w.line(`Contract ${c._id}`);
  w.line(`Document SHA-256: ${c.documentSha256 ?? '-'}`);
  w.line(`Sent ${c.sentAt?.toISOString() ?? '-'}; completed ${completedAt.toISOString()}`, { gap: 12 });
  for (const s of signers) {
    w.line(`${s.position}. ${s.name} <${s.email}> (${s.role})`, { bold: true });
    if (s.role === 'signer') {
      w.line(
        `Invited ${s.invitedAt?.toISOString() ?? '-'}; viewed ${s.viewedAt?.toISOString() ?? '-'}; signed ${s.signedAt?.toISOString() ?? '-'} (${s.signatureType ?? '-'})`,
      );
      w.line(`IP ${s.ip ?? '-'}; user agent ${s.userAgent ?? '-'}`, { gap: 10 });
    } else {
      w.line('Receives the signed copy', { gap: 10 });
    }
  }
  const bytes = await pdf.save();
  return { pdf: bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}
