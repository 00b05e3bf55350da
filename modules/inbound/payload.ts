import { DomainError } from '../../platform/errors';

/**
 * Turns the three accepted body formats into one flat object of canonical keys (pure):
 *  - flat JSON or form-urlencoded: `{ "companyName": "Acme", "customFields": { … } }`
 *  - form-builder webhook: `{ formId?, formName?, submittedAt?, fields: [{ name | key | label, value }] }`,
 *    also wrapped as `{ data: { fields: [...] } }`.
 * Field names match case-insensitively and ignoring spaces, `-`, `_` and `.` ("Company name",
 * "company_name" → companyName); `customFields.<key>` / `customFields[<key>]` name one custom field.
 * Unknown names are ignored, like unknown body fields everywhere in this API.
 */

export interface KeyTable {
  /** Canonical key names (their normalized form is matched too). */
  keys: readonly string[];
  /** Extra normalized names → canonical key (form labels such as "E-mail"). */
  aliases: Record<string, string>;
}

export const normalizeName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const CUSTOM_FIELD_NAME = /^\s*custom[\s_-]*fields?\s*(?:\.\s*(.+?)|\[\s*(.+?)\s*\])\s*$/i;

type Mapped = { kind: 'key'; key: string } | { kind: 'custom'; key: string } | null;

function mapName(table: KeyTable, name: string): Mapped {
  const custom = CUSTOM_FIELD_NAME.exec(name);
  if (custom) return { kind: 'custom', key: (custom[1] ?? custom[2])! };
  const normalized = normalizeName(name);
  const key = table.keys.find((k) => normalizeName(k) === normalized) ?? table.aliases[normalized];
  return key ? { kind: 'key', key } : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Form-builder values are typed by the form (numbers, checkboxes): text fields take their text form. */
function builderText(value: unknown, key: string): unknown {
  if (key === 'tags' || key === 'customFields') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
    return value.join(', ');
  return value;
}

export interface Normalized {
  format: 'flat' | 'form-builder';
  values: Record<string, unknown>;
  /** formName or formId of a form-builder payload (a default lead source). */
  formLabel?: string;
}

function fieldsOf(body: Record<string, unknown>): { fields: unknown[]; meta: Record<string, unknown> } | null {
  if (Array.isArray(body.fields)) return { fields: body.fields, meta: body };
  if (isObject(body.data) && Array.isArray(body.data.fields))
    return { fields: body.data.fields, meta: { ...body, ...body.data } };
  return null;
}

/** The first of a field's name/key/label that maps to a known key (form builders differ in which they fill). */
function mapField(table: KeyTable, field: Record<string, unknown>): Mapped {
  for (const candidate of [field.name, field.key, field.label]) {
    if (typeof candidate !== 'string' || !candidate.trim()) continue;
    const mapped = mapName(table, candidate);
    if (mapped) return mapped;
  }
  return null;
}

export function normalizeInbound(body: unknown, table: KeyTable): Normalized {
  let parsed = body;
  // text/plain senders (some webhook tools) post JSON without saying so.
  if (typeof parsed === 'string' && /^\s*[{[]/.test(parsed)) {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      throw new DomainError('validation', 'body: malformed JSON');
    }
  }
  if (!isObject(parsed))
    throw new DomainError('validation', 'body: must be an object (JSON, form-urlencoded or a form-builder payload)');
  const values: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  const put = (mapped: Mapped, value: unknown): void => {
    if (!mapped) return;
    if (mapped.kind === 'custom') {
      if (!(mapped.key in custom)) custom[mapped.key] = value;
    } else if (mapped.key === 'customFields' && isObject(value)) {
      for (const [k, v] of Object.entries(value)) if (!(k in custom)) custom[k] = v;
    } else if (!(mapped.key in values)) {
      // The first occurrence of a key wins (an exact name and an alias may both be present).
      values[mapped.key] = value;
    }
  };
  const builder = fieldsOf(parsed);
  if (builder) {
    builder.fields.forEach((field, index) => {
      if (!isObject(field))
        throw new DomainError('validation', `fields.${index}: must be an object { name | key | label, value }`);
      const mapped = mapField(table, field);
      put(mapped, mapped?.kind === 'key' ? builderText(field.value, mapped.key) : field.value);
    });
  } else {
    for (const [name, value] of Object.entries(parsed)) put(mapName(table, name), value);
  }
  if (Object.keys(custom).length) values.customFields = custom;
  const label = builder
    ? [builder.meta.formName, builder.meta.formId].find((v) => typeof v === 'string' && v.trim())
    : undefined;
  return {
    format: builder ? 'form-builder' : 'flat',
    values,
    ...(label ? { formLabel: (label as string).trim().slice(0, 100) } : {}),
  };
}
