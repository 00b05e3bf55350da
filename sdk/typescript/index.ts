// The typed TypeScript client of the CRM Workspace API: openapi-fetch over the types generated from
// the OpenAPI document (schema.ts, `npm run sdk:generate`). Paths, parameters, bodies and answers
// are checked by the compiler: `const { data, error } = await crm.GET('/api/v1/deals/{id}', …)`.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
export type CrmClient = Client<paths>;

export interface CrmClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the API answers, e.g. http://127.0.0.1:3000 (paths include /api/v1). */
  baseUrl: string;
  /** A workspace API key (`sb_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
}

export function createCrmClient({ baseUrl, apiKey, headers, ...rest }: CrmClientOptions): CrmClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...(headers as Record<string, string>) },
    ...rest,
  });
}

/** A previewable write answers either the saved record or, with `preview: true`, a preview of it. */
export type Saved<T> = Exclude<T, { preview: true }>;

/** Narrows a previewable write's `data` to the saved record (throws on a preview answer). */
export function saved<T extends object>(data: T): Saved<T> {
  if ('preview' in data && (data as { preview?: unknown }).preview === true)
    throw new Error('expected a saved record, got a preview answer');
  return data as Saved<T>;
}
