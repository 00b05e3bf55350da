import type { z } from 'zod';

/**
 * Builds a value that a zod schema accepts around one pinned field, from the schema's own
 * complaints: start from `base` with the pinned value set, then fill each reported gap with the
 * first candidate that makes that complaint go away. Used by the reference probe to send a body
 * that passes validation, so the only thing wrong with it is the foreign id.
 */
export type Segment = string | number;

const HEX = '0123456789abcdef01234567';
const STRINGS = [
  'Probe',
  HEX,
  'probe@example.test',
  'https://example.test/probe',
  '2031-01-01',
  '2031-01-01T10:00:00Z',
  '10:00',
  '+4512345678',
  'DKK',
  '#ffffff',
  'probe',
  'Europe/Copenhagen',
];
const ANY = [...STRINGS, 1, false, {}, []];

/** `recipients[].personId` → ['recipients', 0, 'personId']; `*` (record value) → 'probe'. */
export function concretePath(declared: string): Segment[] {
  const out: Segment[] = [];
  for (const part of declared.split('.')) {
    const m = /^([^[]*)((\[\])*)$/.exec(part)!;
    if (m[1]) out.push(m[1] === '*' ? 'probe' : m[1]);
    for (let i = 0; i < m[2]!.length / 2; i++) out.push(0);
  }
  return out;
}

export const pathText = (path: readonly Segment[]): string =>
  path.reduce<string>((acc, s) => (typeof s === 'number' ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');

export function setAt(root: unknown, path: readonly Segment[], value: unknown): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const container: any =
    typeof head === 'number'
      ? Array.isArray(root)
        ? [...root]
        : []
      : root && typeof root === 'object' && !Array.isArray(root)
        ? { ...(root as object) }
        : {};
  container[head as never] = setAt(container[head as never], rest, value);
  return container;
}

interface Issue {
  code: string;
  path: Segment[];
  expected?: string;
  values?: unknown[];
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
}

function candidates(issue: Issue): unknown[] {
  switch (issue.code) {
    case 'invalid_value':
      return issue.values ?? [];
    case 'invalid_type':
      switch (issue.expected) {
        case 'string':
          return STRINGS;
        case 'number':
        case 'int':
          return [1, 10, 0];
        case 'boolean':
          return [false, true];
        case 'object':
        case 'record':
          return [{}];
        case 'array':
          return [[]];
        case 'date':
          return ['2031-01-01T10:00:00Z'];
        default:
          return ANY;
      }
    case 'invalid_format':
    case 'invalid_union':
    case 'custom':
      return ANY;
    case 'too_small':
      if (issue.origin === 'array') return [[{}], ['Probe'], [HEX], [1]];
      if (issue.origin === 'string') return ['Probe probe probe probe', 'probeprobe'];
      return [Number(issue.minimum ?? 1), 1];
    case 'too_big':
      return issue.origin === 'number' ? [Number(issue.maximum ?? 0)] : [];
    default:
      return [];
  }
}

const startsWith = (path: readonly Segment[], prefix: readonly Segment[]) =>
  prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
const sameIssue = (a: Issue, b: Issue) => a.code === b.code && pathText(a.path) === pathText(b.path);

/**
 * A value the schema accepts with `pinned` set to `pinnedValue`, or an error saying what blocked.
 * `asQuery` offers only strings (query parameters).
 */
export function buildProbe(
  schema: z.ZodType,
  pinned: readonly Segment[],
  pinnedValue: unknown,
  base: unknown = {},
  asQuery = false,
): { value: unknown } | { error: string } {
  let value = setAt(base, pinned, pinnedValue);
  for (let round = 0; round < 80; round++) {
    const res = schema.safeParse(value);
    if (res.success) return { value };
    const issues = res.error.issues as unknown as Issue[];
    const issue = issues.find((i) => !startsWith(pinned, i.path)) ?? issues[0]!;
    if (startsWith(pinned, issue.path))
      return { error: `${pathText(issue.path) || '(root)'}: ${issue.code} around the pinned field` };
    let next: unknown;
    for (const c of candidates(issue)) {
      const cand = asQuery && typeof c !== 'string' ? (typeof c === 'object' ? undefined : String(c)) : c;
      if (cand === undefined) continue;
      const tried = setAt(value, issue.path, cand);
      const again = schema.safeParse(tried);
      if (again.success || !(again.error.issues as unknown as Issue[]).some((i) => sameIssue(i, issue))) {
        next = tried;
        break;
      }
    }
    if (next === undefined) return { error: `${pathText(issue.path) || '(root)'}: ${issue.code} (no candidate fits)` };
    value = next;
  }
  return { error: 'gave up after 80 rounds' };
}
