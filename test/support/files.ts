import type { HttpClient, HttpResult } from './app';

/** POST /api/v1/files as multipart/form-data (field `file`, plus any text fields). */
export async function uploadFile(
  http: HttpClient,
  bytes: Uint8Array | string,
  options: { filename?: string; type?: string; fields?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  form.append(
    'file',
    new Blob([data], { type: options.type ?? 'application/octet-stream' }),
    options.filename ?? 'upload.bin',
  );
  const res = await fetch(`${http.baseUrl}/api/v1/files`, {
    method: 'POST',
    headers: { ...(http.apiKey ? { authorization: `Bearer ${http.apiKey}` } : {}), ...options.headers },
    body: form,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: res.status, body, headers: res.headers };
}

export const PNG_BYTES = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
