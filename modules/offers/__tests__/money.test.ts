import { computeLines, MoneyError } from '../offer-lines';
import { roundDiv, toScaledExact } from '../../../platform/shared/money';
import type { OfferStatus } from '../offer.entity';
import { effectiveStatus, offerCanGoOut, offerCanMove, offerStatusTransitions } from '../offers.rules';
import { mergeSettings } from '../offer-settings.service';

describe('offer money', () => {
  it.each([
    // [quantity, unitPrice, vatRate, net minor, vat minor]
    [1, 100, 25, 10_000, 2_500],
    [3, 0.1, 25, 30, 8], // 0.30 → VAT 0.075 rounds half away from zero to 0.08
    [1, 0.005, 25, 1, 0], // half a minor unit rounds up to 1; VAT 0.0025 → 0
    [1, -0.005, 25, -1, 0], // negative half rounds away from zero
    [2.5, 19.99, 25, 4_998, 1_250], // 49.975 → 49.98; VAT 12.495 → 12.50
    [0.333333, 3, 25, 100, 25], // 0.999999 → 1.00
    [7, 1.15, 12.5, 805, 101], // 8.05 → VAT 1.00625 → 1.01
    [1, 999_999_999.99, 25, 99_999_999_999, 25_000_000_000],
    [1, 80, 0, 8_000, 0],
    [1_000_000, 0.000001, 25, 100, 25],
  ])('%p × %p at %p%% VAT → net %p, VAT %p (minor units)', (quantity, unitPrice, vatRate, net, vat) => {
    const { lines, totals } = computeLines([{ name: 'x', quantity, unitPrice, vatRate }], {
      defaultVatRate: 25,
      currency: 'DKK',
    });
    expect([lines[0]!.netMinor, lines[0]!.vatMinor]).toEqual([net, vat]);
    expect(totals).toEqual({ subtotalMinor: net, vatMinor: vat, totalMinor: net + vat });
  });

  it('sums rounded lines exactly where floats drift (0.1 + 0.2)', () => {
    const { totals } = computeLines(
      [
        { name: 'a', unitPrice: 0.1 },
        { name: 'b', unitPrice: 0.2 },
      ],
      { defaultVatRate: 0, currency: 'DKK' },
    );
    expect(totals.subtotalMinor).toBe(30);
    const many = computeLines(
      Array.from({ length: 500 }, () => ({ name: 'c', unitPrice: 0.01, vatRate: 25 })),
      { defaultVatRate: 25, currency: 'DKK' },
    );
    expect(many.totals).toEqual({ subtotalMinor: 500, vatMinor: 0, totalMinor: 500 });
  });

  it('uses the default VAT rate, a zero-decimal currency and generated unique line ids', () => {
    const { lines, totals } = computeLines(
      [
        { name: 'a', unitPrice: 1000.4, id: 'x' },
        { name: 'b', unitPrice: 1 },
      ],
      { defaultVatRate: 10, currency: 'JPY' },
    );
    expect(totals).toEqual({ subtotalMinor: 1001, vatMinor: 100, totalMinor: 1101 });
    expect(lines[0]!.id).toMatch(/^[0-9a-f]{24}$/);
    expect(lines[0]!.id).not.toBe(lines[1]!.id);
  });

  it('refuses more decimals than it can keep exact', () => {
    expect(() => computeLines([{ name: 'a', unitPrice: 1.0000001 }], { defaultVatRate: 25, currency: 'DKK' })).toThrow(
      MoneyError,
    );
    expect(toScaledExact(0.1, 6)).toBe(100_000n);
    expect(toScaledExact(-2.5, 2)).toBe(-250n);
    expect(toScaledExact(1e-7, 6)).toBeNull();
    expect(roundDiv(5n, 10n)).toBe(1n);
    expect(roundDiv(-5n, 10n)).toBe(-1n);
    expect(roundDiv(4n, 10n)).toBe(0n);
  });
});

describe('offer status', () => {
  it('derives expired from validUntil (inclusive) and only lets drafts be sent', () => {
    const now = new Date('2030-05-10T12:00:00Z');
    expect(effectiveStatus({ status: 'sent', validUntil: '2030-05-10' }, now)).toBe('sent');
    expect(effectiveStatus({ status: 'sent', validUntil: '2030-05-09' }, now)).toBe('expired');
    expect(effectiveStatus({ status: 'draft', validUntil: '2000-01-01' }, now)).toBe('draft');
    expect(offerStatusTransitions.can('draft', 'sent')).toBe(true);
    expect(offerStatusTransitions.can('sent', 'sent')).toBe(true);
    expect(() => offerStatusTransitions.assert('accepted', 'cancelled')).toThrow(/accepted is final/);
  });

  // The guards of send, cancel, e-mail/SMS and the public answer come from the table: a state's own name is no move.
  it.each<[OfferStatus, boolean, boolean, boolean, boolean]>([
    // status, may be sent, may be cancelled, may be accepted, may go out (e-mail, SMS)
    ['draft', true, true, false, true],
    ['sent', false, true, true, true],
    ['accepted', false, false, false, false],
    ['declined', false, false, false, false],
    ['cancelled', false, false, false, false],
    ['expired', false, false, false, false],
  ])('%s: send %p, cancel %p, accept %p, go out %p', (status, send, cancel, accept, goOut) => {
    expect(offerCanMove(status, 'sent')).toBe(send);
    expect(offerCanMove(status, 'cancelled')).toBe(cancel);
    expect(offerCanMove(status, 'accepted')).toBe(accept);
    expect(offerCanMove(status, 'declined')).toBe(accept);
    expect(offerCanGoOut(status)).toBe(goOut);
  });

  it('settings merge nested objects and replace arrays', () => {
    const base = {
      defaults: { vatRate: 25, currency: 'DKK' },
      lineItemUnits: [{ value: 'a' }, { value: 'b' }],
      numbering: { prefix: 'X', nextNumber: 1 },
    };
    expect(
      mergeSettings(base, { defaults: { vatRate: 12 }, lineItemUnits: [{ value: 'c' }], numbering: { prefix: null } }),
    ).toEqual({
      defaults: { vatRate: 12, currency: 'DKK' },
      lineItemUnits: [{ value: 'c' }],
      numbering: { prefix: null, nextNumber: 1 },
    });
  });
});
