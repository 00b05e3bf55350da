// Snippets are small HTML fragments: the record text is escaped and the matched words are wrapped
// in <mark>…</mark>, so a client can render them as HTML without opening an injection hole.

/** Private-use markers Meilisearch puts around matches; stripped from record text before use. */
export const PRE = '\u{F0001}';
export const POST = '\u{F0002}';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Escapes text that carries PRE/POST markers and turns the markers into <mark> tags. */
export function markedToHtml(marked: string): string {
  return escapeHtml(marked).split(PRE).join('<mark>').split(POST).join('</mark>');
}

/** Degraded mode: crops `text` around the first case-insensitive occurrence of `q` and marks it. */
export function snippetAround(text: string, q: string, radius = 40): string | null {
  const at = text.toLowerCase().indexOf(q.toLowerCase());
  if (at < 0) return null;
  const start = Math.max(0, at - radius);
  const end = Math.min(text.length, at + q.length + radius);
  const marked = `${start > 0 ? '…' : ''}${text.slice(start, at)}${PRE}${text.slice(at, at + q.length)}${POST}${text.slice(at + q.length, end)}${end < text.length ? '…' : ''}`;
  return markedToHtml(marked);
}
