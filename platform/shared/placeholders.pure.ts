/**
 * `{{namespace.path|default:x|format:currency}}` placeholders. A resolver, never an evaluator:
 * paths are looked up in the context and filters are a closed list. Bare names (`{{firstName}}`)
 * and unknown namespaces render as "" and are reported, so a step log can show why.
 */
import {
  DEFAULT_FORMAT,
  escapeHtml,
  formatCurrency,
  formatDate,
  formatNumber,
  stringify,
  type FormatOptions,
} from './format.pure';
import { getPath, splitPath } from './path.pure';

/** Automation namespaces: the spec's list plus the namespaces its trigger table exposes. */
export const AUTOMATION_NAMESPACES = [
  'lead',
  'company',
  'contact',
  'person',
  'deal',
  'owner',
  'call',
  'email',
  'sms',
  'webhookData',
  'lookup',
  'system',
  'httpResponse',
  'ai_text',
  'ai_json',
  'aiOutput',
  'event',
  'agent',
  'analytics',
  'transcript',
  'offer',
  'contract',
  'signer',
  'booking',
  'calculator',
  'ai',
  'ticket',
  'ads',
  'custom_record',
  'enrollment',
] as const;
/** Previous-step outputs that are values themselves, so `{{ai_text}}` needs no dot. */
export const AUTOMATION_TOP_LEVEL_NAMES = ['ai_text', 'ai_json', 'aiOutput'] as const;

export const SEQUENCE_NAMESPACES = [
  'contact',
  'person',
  'company',
  'lead',
  'deal',
  'owner',
  'workspace',
  'system',
  'customFields',
  'aiOutput',
  'stepHistory',
] as const;
/** The spec's formatting example is `{{currentDate|format:date}}`. */
export const SEQUENCE_TOP_LEVEL_NAMES = ['aiOutput', 'currentDate', 'currentTime'] as const;

export interface PlaceholderOptions extends FormatOptions {
  /** 'html' escapes substituted values (e-mail bodies); the template itself is left as written. */
  escape?: 'html';
  /** Defaults to AUTOMATION_NAMESPACES / AUTOMATION_TOP_LEVEL_NAMES. */
  namespaces?: readonly string[];
  topLevelNames?: readonly string[];
}

export type UnresolvedReason = 'bare_name' | 'unknown_namespace' | 'missing' | 'unknown_filter' | 'format_failed';
export interface UnresolvedPlaceholder {
  placeholder: string;
  reason: UnresolvedReason;
}

export interface PlaceholderFilter {
  name: string;
  args: string[];
}
export interface ParsedPlaceholder {
  /** The text between the braces, as written. */
  expression: string;
  path: string;
  segments: string[];
  filters: PlaceholderFilter[];
}

/** Non-greedy and brace-free, so `{{a}} and {{b}}` are two placeholders. */
const PLACEHOLDER_RE = /\{\{([^{}]+?)\}\}/g;
/** Sequence AI blocks (`{{ai:intro}}`) belong to the sequence renderer and are left untouched. */
const isAiBlock = (expression: string): boolean => /^\s*ai:/.test(expression);

/** Splits on `sep` outside single or double quotes. */
function splitOutsideQuotes(s: string, sep: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let current = '';
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = null;
      current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === sep) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

const unquote = (s: string): string => {
  const t = s.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0] ? t.slice(1, -1) : t;
};

export function parsePlaceholder(expression: string): ParsedPlaceholder {
  const [pathPart = '', ...filterParts] = splitOutsideQuotes(expression, '|');
  const path = pathPart.trim();
  const filters = filterParts.map((raw) => {
    const colon = raw.indexOf(':');
    const name = (colon === -1 ? raw : raw.slice(0, colon)).trim().toLowerCase();
    if (colon === -1) return { name, args: [] };
    const rest = raw.slice(colon + 1);
    // default takes everything after the first colon ("default:N/A: none" keeps its colon).
    const args = name === 'default' ? [unquote(rest)] : rest.split(':').map(unquote);
    return { name, args };
  });
  return { expression, path, segments: splitPath(path), filters };
}

/** Every placeholder of a template (sequence AI blocks excluded). */
export function listPlaceholders(template: string): ParsedPlaceholder[] {
  const out: ParsedPlaceholder[] = [];
  for (const m of template.matchAll(PLACEHOLDER_RE)) if (!isAiBlock(m[1]!)) out.push(parsePlaceholder(m[1]!));
  return out;
}

/** Why a path can never resolve (bare name, unknown namespace), or null when it is addressable. */
export function pathProblem(
  segments: readonly string[],
  opts: PlaceholderOptions = {},
): 'bare_name' | 'unknown_namespace' | null {
  const namespaces: readonly string[] = opts.namespaces ?? AUTOMATION_NAMESPACES;
  const topLevel: readonly string[] = opts.topLevelNames ?? AUTOMATION_TOP_LEVEL_NAMES;
  const head = segments[0];
  if (head === undefined) return 'bare_name';
  if (topLevel.includes(head)) return null;
  if (!namespaces.includes(head)) return segments.length === 1 ? 'bare_name' : 'unknown_namespace';
  return null;
}

const isEmpty = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** The value of one placeholder after its filters, plus what went wrong. */
function evaluate(
  p: ParsedPlaceholder,
  context: Record<string, unknown>,
  opts: PlaceholderOptions,
  unresolved: UnresolvedPlaceholder[],
): unknown {
  const report = (reason: UnresolvedReason) => unresolved.push({ placeholder: p.expression.trim(), reason });
  const problem = pathProblem(p.segments, opts);
  if (problem) report(problem);
  let value = problem ? undefined : getPath(context, p.segments);
  let hasDefault = false;
  for (const f of p.filters) {
    if (f.name === 'default') {
      hasDefault = true;
      if (isEmpty(value)) value = f.args[0] ?? '';
    } else if (f.name === 'format') {
      if (isEmpty(value)) continue;
      const [kind = '', arg] = f.args;
      let formatted: string | null;
      if (kind === 'currency') formatted = formatCurrency(value, opts, arg || undefined);
      else if (kind === 'number') formatted = formatNumber(value, opts);
      else if (kind === 'date' || kind === 'datetime' || kind === 'time') formatted = formatDate(value, kind, opts);
      else {
        report('unknown_filter');
        continue;
      }
      if (formatted === null) report('format_failed');
      else value = formatted;
    } else report('unknown_filter');
  }
  if (!problem && !hasDefault && isEmpty(value)) report('missing');
  return value;
}

const withDefaults = (opts: PlaceholderOptions): PlaceholderOptions => ({
  ...opts,
  locale: opts.locale ?? DEFAULT_FORMAT.locale,
  currency: opts.currency ?? DEFAULT_FORMAT.currency,
  timezone: opts.timezone ?? DEFAULT_FORMAT.timezone,
});

/** Renders a template to text and lists the placeholders that produced nothing useful. */
export function renderTemplate(
  template: string,
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
): { text: string; unresolved: UnresolvedPlaceholder[] } {
  if (typeof template !== 'string') return { text: stringify(template), unresolved: [] };
  const o = withDefaults(opts);
  const unresolved: UnresolvedPlaceholder[] = [];
  const text = template.replace(PLACEHOLDER_RE, (whole, expression: string) => {
    if (isAiBlock(expression)) return whole;
    const s = stringify(evaluate(parsePlaceholder(expression), context, o, unresolved));
    return o.escape === 'html' ? escapeHtml(s) : s;
  });
  return { text, unresolved };
}

export function resolveTemplate(
  template: string,
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
): string {
  return renderTemplate(template, context, opts).text;
}

const WHOLE_RE = /^\s*\{\{([^{}]+?)\}\}\s*$/;

/**
 * A string that is exactly one placeholder yields the raw value (`{{deal.value}}` → 1500, an
 * object stays an object); any other string renders as text; non-strings are returned as is.
 */
export function renderValue(
  template: unknown,
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
): { value: unknown; unresolved: UnresolvedPlaceholder[] } {
  if (typeof template !== 'string') return { value: template, unresolved: [] };
  const m = WHOLE_RE.exec(template);
  if (!m || isAiBlock(m[1]!)) {
    const { text, unresolved } = renderTemplate(template, context, opts);
    return { value: text, unresolved };
  }
  const unresolved: UnresolvedPlaceholder[] = [];
  return { value: evaluate(parsePlaceholder(m[1]!), context, withDefaults(opts), unresolved), unresolved };
}

export function resolveValue(
  template: unknown,
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
): unknown {
  return renderValue(template, context, opts).value;
}

const MAX_DEPTH = 32;

/** Resolves every string inside a JSON-like value (http bodies, field values); keys are untouched. */
export function resolveDeep(
  value: unknown,
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
): { value: unknown; unresolved: UnresolvedPlaceholder[] } {
  const unresolved: UnresolvedPlaceholder[] = [];
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const r = renderValue(v, context, opts);
      unresolved.push(...r.unresolved);
      return r.value;
    }
    if (depth >= MAX_DEPTH || v === null || typeof v !== 'object' || v instanceof Date) return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, depth + 1)]));
  };
  return { value: walk(value, 0), unresolved };
}
