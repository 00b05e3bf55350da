import type { RouteDef } from '../../platform/http/registry';
import { referenceHeader, type DocsLimits } from './conventions';
import { endpointDoc, groupSections, slug, type EndpointDoc, type Section } from './reference';
import { fieldRows, type JsonSchema } from '../../platform/http/json-schema';
import type { TransitionsDoc } from '../../platform/shared/transitions';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    '',
  ];
}

function fieldsTable(title: string, schema: JsonSchema | null): string[] {
  const rows = fieldRows(schema);
  if (!rows.length) return [];
  return [
    `**${title}**`,
    '',
    ...table(
      ['Field', 'Type', 'Required', 'Description'],
      rows.map((r) => [`\`${r.name}\``, r.type, r.required ? 'yes' : 'no', r.description]),
    ),
  ];
}

/** A transition table: one row per state; other moves answer 409 invalid_state. */
export function stateMachineMarkdown(sm: TransitionsDoc): string[] {
  const rows = sm.transitions.map((r) => [
    `\`${r.from}\``,
    r.to.length ? r.to.map((s) => `\`${s}\``).join(', ') : '(final)',
    r.requires ?? '',
  ]);
  return [
    `**${sm.resource} ${sm.field} transitions** (anything else: 409 \`invalid_state\`)`,
    '',
    ...table(['From', 'To', 'Only when'], rows),
    ...sm.notes.map((n) => `- ${n}`),
    ...(sm.notes.length ? [''] : []),
  ];
}

function authLine(doc: EndpointDoc): string {
  if (doc.auth.public) return `**Auth:** none (public: ${doc.auth.reason})`;
  const scopes = doc.auth.scopes.length ? doc.auth.scopes.map((s) => `\`${s}\``).join(', ') : 'any valid key';
  return `**Auth:** API key; scopes: ${scopes}; roles: ${doc.auth.roles.join(', ')}`;
}

function endpointMarkdown(doc: EndpointDoc): string[] {
  const lines = [`### \`${doc.method} ${doc.path}\``, '', doc.summary, ''];
  if (doc.description) lines.push(doc.description, '');
  lines.push(authLine(doc), '', `**Success:** ${doc.successStatus}`, '');
  for (const res of doc.responses) {
    const media = res.media.length ? res.media.map((m) => `\`${m}\``).join(', ') : 'no body';
    const headers = res.headers.length ? `; headers ${res.headers.map((h) => `\`${h}\``).join(', ')}` : '';
    lines.push(`**${res.status}** (${media}${headers}): ${res.description}`, '');
    if (res.media.includes('application/json'))
      lines.push(...fieldsTable(`Response ${res.status}`, res.schema ?? null));
  }
  lines.push(`**Errors:** ${doc.errors.join(', ')} (body \`{ error, code?, details? }\`)`, '');
  if (doc.previewable)
    lines.push(
      '**Preview:** accepts `preview: true` (body) or `?preview=true`; answers `{ data: { preview: true, current, proposed, diff } }` without saving.',
      '',
    );
  if (doc.bodyFormats.length > 1) lines.push(`**Body formats:** ${doc.bodyFormats.join(', ')}`, '');
  lines.push(
    ...fieldsTable('Path parameters', doc.params),
    ...fieldsTable('Query parameters', doc.query),
    ...fieldsTable('Body', doc.body),
  );
  for (const sm of doc.stateMachines ?? []) lines.push(...stateMachineMarkdown(sm));
  return lines;
}

function conventionsMarkdown(limits?: DocsLimits): string[] {
  const { title, version, basePath, authentication: auth, conventions: c } = referenceHeader(limits);
  return [
    `# ${title} reference`,
    '',
    `Version ${version}. Paths are shown in full; the interface lives under \`${basePath}\`. Machine-readable forms: \`GET ${basePath}/docs\` (JSON) and \`GET ${basePath}/docs?type=openapi\` (OpenAPI 3.1).`,
    '',
    '## Conventions',
    '',
    '### Authentication',
    '',
    ...auth.schemes.map((s) => `- ${'header' in s ? `\`${s.header}\`` : `query parameter \`${s.name}\` (${s.note})`}`),
    `- Keys start with \`${auth.keyPrefix}\`; ${auth.storage}.`,
    `- ${auth.workspace}.`,
    `- Scopes: ${auth.scopes.map((s) => `\`${s}\``).join(', ')}. Roles: ${auth.roles.join(', ')}.`,
    ...auth.rules.map((r) => `- ${r}`),
    '',
    '### Envelopes',
    '',
    ...Object.entries(c.envelopes).map(([k, v]) => `- ${k}: \`${v}\``),
    '',
    '### Pagination',
    '',
    `- \`page\` default ${c.pagination.page.default}; \`limit\` default ${c.pagination.limit.default}, max ${c.pagination.limit.max}` +
      ` (${Object.entries(c.pagination.maxLimitByResource)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ')}).`,
    `- ${c.pagination.overMax}.`,
    '',
    '### Errors',
    '',
    'Body of every error: `{ "error": "<message>", "code"?: "<code>", "details"?: ... }`.',
    '',
    ...table(
      ['Status', 'Code', 'Meaning'],
      c.errors.map((e) => [String(e.status), e.codes.join(', '), e.meaning]),
    ),
    '### Rate limits',
    '',
    `- Per ${c.rateLimits.per}: ${c.rateLimits.perMinute} requests per minute, ${c.rateLimits.perDay} per day.`,
    `- Headers: ${c.rateLimits.headers.map((h) => `\`${h}\``).join(', ')}.`,
    `- ${c.rateLimits.onExceeded}.`,
    '',
    '### Idempotency keys',
    '',
    ...Object.values(c.idempotency).map((v) => `- ${v}.`),
    '',
    '### Preview mode',
    '',
    `- Request: ${c.preview.request}.`,
    `- Response: ${c.preview.response}.`,
    `- Diff: ${c.preview.diff}.`,
    `- ${c.preview.persist}.`,
    '',
    '### Other',
    '',
    `- Unknown fields: ${c.unknownFields}.`,
    `- Ids: \`${c.ids.field}\`, ${c.ids.format}.`,
    `- Dates: ${c.dates}. Bodies: ${c.bodies}; at most ${c.bodyLimitBytes} bytes (413 above).`,
    '',
  ];
}

function sectionMarkdown(section: Section): string[] {
  return [`## ${section.name}`, '', ...section.routes.flatMap((def) => endpointMarkdown(endpointDoc(def)))];
}

/** The reference as Markdown; with `withConventions` false only the sections (for ?section=&type=markdown). */
export function markdownReference(
  routes: readonly RouteDef[],
  opts: { limits?: DocsLimits; withConventions?: boolean } = {},
): string {
  const sections = groupSections(routes);
  const lines = opts.withConventions === false ? [] : conventionsMarkdown(opts.limits);
  if (opts.withConventions !== false) {
    lines.push('## Sections', '', ...sections.map((s) => `- [${s.name}](#${slug(s.name)}) (${s.routes.length})`), '');
  }
  lines.push(...sections.flatMap(sectionMarkdown));
  return (
    lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  );
}
