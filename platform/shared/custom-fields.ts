/** Companies and people store custom fields as name/value pairs (spec: Conventions). */
export interface NameValue {
  name: string;
  value: unknown;
}

export type CustomFieldsInput = NameValue[] | Record<string, unknown>;

/** Creation accepts both forms; the stored form is the pair array, first occurrence of a name wins. */
export function toNameValueArray(input: CustomFieldsInput | undefined): NameValue[] {
  if (!input) return [];
  const pairs = Array.isArray(input) ? input : Object.entries(input).map(([name, value]) => ({ name, value }));
  const seen = new Set<string>();
  return pairs.filter(
    (pair) => pair.value !== null && pair.value !== undefined && !seen.has(pair.name) && seen.add(pair.name),
  );
}

/** Update merges partially: given keys change, `null` removes a key, other keys stay. */
export function mergeNameValues(current: NameValue[], patch: CustomFieldsInput): NameValue[] {
  const entries = Array.isArray(patch) ? patch.map((pair) => [pair.name, pair.value] as const) : Object.entries(patch);
  const result = current.map((pair) => ({ ...pair }));
  for (const [name, value] of entries) {
    const index = result.findIndex((pair) => pair.name === name);
    if (value === null || value === undefined) {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = { name, value };
    } else {
      result.push({ name, value });
    }
  }
  return result;
}

/** Key/value maps (leads, deals, tasks) merge the same way. */
export function mergeObject(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const result = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined) delete result[key];
    else result[key] = value;
  }
  return result;
}

/** Name/value pairs or a map, as a map (for validation against definitions). */
export function asRecord(input: CustomFieldsInput): Record<string, unknown> {
  return Array.isArray(input) ? Object.fromEntries(input.map((pair) => [pair.name, pair.value])) : input;
}
