import { likePattern } from '../../platform/shared/listing';
import { COMPARISON_OPERATORS, type Scalar } from '../../platform/shared/operators';

/** Operators of POST /custom-fields/search; every filter of a search must match (AND). */
export const SEARCH_OPERATORS = COMPARISON_OPERATORS;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number];

export interface SearchFilter {
  key: string;
  operator: SearchOperator;
  value?: Scalar | Scalar[];
}
export interface Sql {
  sql: string;
  params: unknown[];
}

/** Where the values live: companies/people keep [{ name, value }] pairs, leads/deals a key → value map. */
export type Storage = 'pairs' | 'map';

/** The jsonb value stored under `key` (SQL NULL when absent). `column` is a trusted column reference. */
function valueOf(storage: Storage, column: string, key: string): Sql {
  return storage === 'map'
    ? { sql: `(${column} -> ?)`, params: [key] }
    : {
        sql: `(select x -> 'value' from jsonb_array_elements(${column}) x where x ->> 'name' = ? limit 1)`,
        params: [key],
      };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** One filter as a SQL condition with positional parameters; values are always bound, never inlined. */
export function filterCondition(storage: Storage, column: string, filter: SearchFilter): Sql {
  const v = valueOf(storage, column, filter.key);
  const present: Sql = { sql: `coalesce(${v.sql}, 'null'::jsonb) <> 'null'::jsonb`, params: v.params };
  const value = filter.value;
  switch (filter.operator) {
    case 'exists':
      return present;
    case 'not_exists':
      return { sql: `not (${present.sql})`, params: present.params };
    case 'equals':
    case 'not_equals': {
      // Containment (@>) is exact for scalars and can use a GIN index on the column.
      const probe = storage === 'map' ? { [filter.key]: value } : [{ name: filter.key, value }];
      const eq: Sql = { sql: `${column} @> ?::jsonb`, params: [JSON.stringify(probe)] };
      return filter.operator === 'equals'
        ? eq
        : { sql: `(${present.sql}) and not (${eq.sql})`, params: [...present.params, ...eq.params] };
    }
    case 'contains':
      // Text: case-insensitive substring; multi_select arrays: has the element.
      return {
        sql: `(case jsonb_typeof(${v.sql}) when 'string' then (${v.sql} #>> '{}') ilike ? when 'array' then ${v.sql} @> ?::jsonb else false end)`,
        params: [...v.params, ...v.params, likePattern(String(value)), ...v.params, JSON.stringify([value])],
      };
    case 'greater_than':
    case 'less_than': {
      const op = filter.operator === 'greater_than' ? '>' : '<';
      if (typeof value === 'number') {
        return {
          sql: `(case when jsonb_typeof(${v.sql}) = 'number' then (${v.sql} #>> '{}')::numeric ${op} ? else false end)`,
          params: [...v.params, ...v.params, value],
        };
      }
      // Dates compare as ISO text in byte order (ISO 8601 sorts chronologically for one offset).
      return {
        sql: `(case when jsonb_typeof(${v.sql}) = 'string' and (${v.sql} #>> '{}') ~ '^\\d{4}-\\d{2}-\\d{2}' then (${v.sql} #>> '{}') collate "C" ${op} ? else false end)`,
        params: [...v.params, ...v.params, ...v.params, String(value)],
      };
    }
    case 'in': {
      const list = (value as Scalar[]).map((x) => JSON.stringify(x));
      // A scalar value matches when it is in the list; a multi_select array when any element is.
      return {
        sql: `exists (select 1 from jsonb_array_elements(case when jsonb_typeof(${v.sql}) = 'array' then ${v.sql} else jsonb_build_array(${v.sql}) end) el where el in (${list.map(() => '?::jsonb').join(', ')}))`,
        params: [...v.params, ...v.params, ...v.params, ...list],
      };
    }
  }
}

/** Why a filter's value does not fit its operator, or null. */
export function filterValueProblem(filter: { operator: SearchOperator; value?: unknown }): string | null {
  const { operator, value } = filter;
  const scalar = (x: unknown): boolean =>
    typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x));
  switch (operator) {
    case 'exists':
    case 'not_exists':
      return null;
    case 'equals':
    case 'not_equals':
      return scalar(value) ? null : 'value must be a string, number or boolean';
    case 'contains':
      return typeof value === 'string' && value.length > 0 ? null : 'value must be a non-empty string';
    case 'greater_than':
    case 'less_than':
      return (typeof value === 'number' && Number.isFinite(value)) ||
        (typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)))
        ? null
        : 'value must be a number or an ISO 8601 date';
    case 'in':
      return Array.isArray(value) && value.length >= 1 && value.length <= 100 && value.every(scalar)
        ? null
        : 'value must be an array of 1 to 100 strings, numbers or booleans';
  }
}
