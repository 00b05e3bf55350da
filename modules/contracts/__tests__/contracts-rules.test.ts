import { loggedPath } from '../../../api/app';
import { priceLines, toMinor } from '../money';
import { hashToken, isTokenShape, newSignerToken } from '../tokens';

describe('contract money: integer minor units', () => {
  it.each([
    [0.1, 10],
    [0.005, 1],
    [-0.005, -1],
    [33.335, 3334],
    [1.005, 101],
    [19.99, 1999],
    [1e9, 1e11],
  ])('toMinor(%p) = %p', (amount, minor) => expect(toMinor(amount)).toBe(minor));

  it.each([
    // quantity, unitPrice, vatRate → subtotal, vat, total (minor units)
    [3, 33.335, 25, 10002, 2501, 12503],
    [0.1, 0.05, 0, 1, 0, 1],
    [1.5, 0.99, 25, 149, 37, 186],
    [10, 0.1, 25, 100, 25, 125],
    [1, -50, 25, -5000, -1250, -6250],
    [0, 100, 25, 0, 0, 0],
  ])('%p × %p at %p%% VAT', (quantity, unitPrice, vatRate, subtotal, vat, total) => {
    const { lines, subtotalMinor, vatMinor, totalMinor } = priceLines([{ name: 'x', quantity, unitPrice, vatRate }]);
    expect(lines[0]).toMatchObject({ subtotalMinor: subtotal, vatMinor: vat, totalMinor: total });
    expect([subtotalMinor, vatMinor, totalMinor]).toEqual([subtotal, vat, total]);
  });

  it('multiplies exactly: no float error in large products, 400 beyond 2^53 minor units', () => {
    // 0.1 × 3 in floats is 0.30000000000000004; 123456789.12 × 999999.999999 needs more than 53 bits on the way.
    expect(priceLines([{ quantity: 3, unitPrice: 0.1, vatRate: 0 }]).subtotalMinor).toBe(30);
    expect(priceLines([{ quantity: 0.333333, unitPrice: 300, vatRate: 0 }]).subtotalMinor).toBe(10000);
    expect(priceLines([{ quantity: 1.000001, unitPrice: 1_000_000, vatRate: 0 }]).subtotalMinor).toBe(100_000_100);
    expect(() => priceLines([{ quantity: 1_000_000, unitPrice: 1_000_000_000, vatRate: 25 }])).toThrow(
      /supported range/,
    );
    expect(priceLines([{ quantity: 1000, unitPrice: 1_000_000_000, vatRate: 25 }]).totalMinor).toBe(
      125_000_000_000_000,
    );
  });

  it('sums per line (no drift over many lines) and gives each line an id', () => {
    const { lines, totalMinor } = priceLines(
      Array.from({ length: 1000 }, () => ({ name: 'x', quantity: 1, unitPrice: 0.1, vatRate: 25 })),
    );
    expect(totalMinor).toBe(1000 * 13);
    expect(new Set(lines.map((l) => l.id)).size).toBe(1000);
  });
});

describe('signer tokens', () => {
  it('are 256-bit base64url strings stored as SHA-256 hex', () => {
    const a = newSignerToken();
    const b = newSignerToken();
    expect(isTokenShape(a.token)).toBe(true);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(hashToken(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(isTokenShape('short')).toBe(false);
    expect(isTokenShape(`${a.token}/`)).toBe(false);
  });

  it('never reach the request log: the signing path segment is redacted', () => {
    const { token } = newSignerToken();
    for (const p of [
      `/public/contracts/sign/${token}`,
      `/public/contracts/sign/${token}/sign`,
      `/public/contracts/sign/${token}/document`,
    ]) {
      expect(loggedPath(p)).not.toContain(token);
      expect(loggedPath(p)).toMatch(/^\/public\/contracts\/sign\/\[redacted\]/);
    }
    expect(loggedPath('/api/v1/contracts/abc')).toBe('/api/v1/contracts/abc');
  });
});
