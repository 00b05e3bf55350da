/**
 * Headers of an HTML page answered to someone who holds no API key (a booking decision page, an offer page): never
 * cached, indexed, framed or sent on as a referrer, and it may load nothing but its own inline styles (and, with
 * `imgSrc`, images from there).
 */
export function publicPageHeaders(opts: { imgSrc?: string } = {}): Record<string, string> {
  const img = opts.imgSrc ? `img-src ${opts.imgSrc}; ` : '';
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store, private',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; ${img}form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  };
}
