/** RFC 6266 attachment header with an ASCII fallback and the UTF-8 name (S3 presigned downloads, local downloads). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
