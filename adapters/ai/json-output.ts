import { DomainError } from '../../platform/errors';

/**
 * Model output in json_schema mode: parsed (a ```json fence some compatible servers add is
 * tolerated) and checked against the schema's top level: required properties present, declared
 * simple types matching. Deeper structure is the provider's strict mode's job.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

/** Problems of `value` against the schema's top-level `required` and property `type`s (empty when fine). */
export function topLevelProblems(value: Record<string, unknown>, schema: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const missing = required.filter((name) => !(name in value));
  if (missing.length) problems.push(`missing required field(s): ${missing.join(', ')}`);
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, spec] of Object.entries(properties)) {
    if (!(name in value) || !isObject(spec) || spec.type === undefined) continue;
    const types = Array.isArray(spec.type) ? (spec.type as string[]) : [String(spec.type)];
    // Optional fields may come back null: strict mode makes them nullable (see toStrictSchema).
    const optional = !required.includes(name);
    if (!types.some((t) => typeMatches(value[name], t)) && !(optional && value[name] === null)) {
      problems.push(`field "${name}" must be of type ${types.join(' or ')}`);
    }
  }
  return problems;
}

/** The parsed object, or upstream_failed with what the model returned instead. */
export function parseJsonOutput(text: string, schema: Record<string, unknown>): Record<string, unknown> {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i, '$1')
    .trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const snippet = body.length > 200 ? `${body.slice(0, 200)}…` : body;
    throw new DomainError(
      'upstream_failed',
      `the AI model did not return JSON in json_schema mode (got: ${JSON.stringify(snippet)})`,
    );
  }
  if (!isObject(parsed))
    throw new DomainError('upstream_failed', 'the AI model returned JSON that is not an object in json_schema mode');
  const problems = topLevelProblems(parsed, schema);
  if (problems.length)
    throw new DomainError('upstream_failed', `the AI output does not match the schema: ${problems.join('; ')}`, {
      problems,
    });
  return parsed;
}

/**
 * The schema as OpenAI strict mode accepts it: every object closes (additionalProperties false)
 * and lists all its properties as required; properties that were optional become nullable, so
 * the meaning stays "may be absent" (absent = null). Servers without strict mode ignore this.
 */
export function toStrictSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  if (isObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const properties: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(schema.properties)) {
      const strict = isObject(spec) ? toStrictSchema(spec) : spec;
      properties[name] = required.has(name) ? strict : nullable(strict);
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties ??= false;
    out.type ??= 'object';
  }
  if (isObject(schema.items)) out.items = toStrictSchema(schema.items);
  return out;
}

function nullable(spec: unknown): unknown {
  if (!isObject(spec)) return spec;
  const types =
    typeof spec.type === 'string' ? [spec.type] : Array.isArray(spec.type) ? (spec.type as unknown[]) : null;
  if (!types) return { anyOf: [spec, { type: 'null' }] };
  if (types.includes('null')) return spec;
  const out: Record<string, unknown> = { ...spec, type: [...types, 'null'] };
  // An enum must list null too, or strict mode could never produce the null.
  if (Array.isArray(spec.enum) && !spec.enum.includes(null)) out.enum = [...spec.enum, null];
  return out;
}
