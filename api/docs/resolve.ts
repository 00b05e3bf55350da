import { z } from 'zod';
import { DomainError } from '../../platform/errors';
import type { RouteDef } from '../../platform/http/registry';
import type { DocsLimits } from './conventions';
import { markdownReference } from './markdown';
import { openApiDocument } from './openapi';
import {
  findSection,
  fullReference,
  groupSections,
  matchesSubsection,
  referenceIndex,
  sectionStateMachines,
  sectionsFull,
  sectionsIndex,
  subsectionsOf,
} from './reference';

const flag = (what: string) =>
  z
    .enum(['true', 'false'], { message: `${what} must be true or false` })
    .transform((v) => v === 'true')
    .optional();

/** Query of `GET /api/v1/docs`; strict so a misspelt parameter is a 400, not a silently ignored one. */
export const docsQuery = z.strictObject(
  {
    section: z
      .string()
      .trim()
      .min(1, 'section must not be empty')
      .optional()
      .describe('section name, case-insensitive'),
    subsection: z
      .string()
      .trim()
      .min(1, 'subsection must not be empty')
      .optional()
      .describe('resource or path fragment narrowing the section; needs section'),
    type: z
      .enum(['json', 'openapi', 'markdown'], { message: 'type must be json, openapi or markdown' })
      .default('json')
      .describe('output format'),
    index: flag('index').describe('true: only the list of sections with their endpoints (method, path, summary)'),
    full: flag('full').describe('true: every section in full'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown query parameter ${issue.keys.join(', ')}; allowed: section, subsection, type, index, full`
        : undefined,
  },
);

export type DocsQuery = z.infer<typeof docsQuery>;

export type DocsOutput =
  { kind: 'json'; body: unknown } | { kind: 'openapi'; body: unknown } | { kind: 'markdown'; text: string };

/** Picks what `GET /api/v1/docs` answers for a validated query; bad combinations are 400, unknown names 404. */
export function resolveDocs(routes: readonly RouteDef[], query: DocsQuery, limits?: DocsLimits): DocsOutput {
  if (query.subsection && !query.section)
    throw new DomainError('validation', 'subsection needs section (e.g. ?section=Companies&subsection=companies)');
  if (query.index && query.full) throw new DomainError('validation', 'index=true and full=true exclude each other');
  if (query.index && query.type !== 'json')
    throw new DomainError('validation', 'index=true is only available with type=json');

  let selected: readonly RouteDef[] = routes;
  let sectionName: string | undefined;
  if (query.section) {
    const sections = groupSections(routes);
    const section = findSection(sections, query.section);
    if (!section) {
      const valid = sections.map((s) => s.name);
      throw new DomainError('not_found', `unknown section "${query.section}"; valid sections: ${valid.join(', ')}`, {
        sections: valid,
      });
    }
    sectionName = section.name;
    selected = section.routes;
    if (query.subsection) {
      const subsection = query.subsection;
      selected = section.routes.filter((def) => matchesSubsection(def, subsection));
      if (!selected.length) {
        const valid = subsectionsOf(section);
        throw new DomainError(
          'not_found',
          `no endpoint of section "${section.name}" matches subsection "${subsection}"; try: ${valid.join(', ')}`,
          { subsections: valid },
        );
      }
    }
  }

  if (query.type === 'openapi') return { kind: 'openapi', body: openApiDocument(selected, limits) };
  if (query.type === 'markdown')
    return { kind: 'markdown', text: markdownReference(selected, { limits, withConventions: !sectionName }) };
  if (query.index) return { kind: 'json', body: { data: sectionsIndex(groupSections(selected)) } };
  if (sectionName) {
    const [section] = sectionsFull(groupSections(selected));
    const stateMachines = sectionStateMachines(selected);
    return {
      kind: 'json',
      body: {
        data: {
          section: sectionName,
          ...(query.subsection ? { subsection: query.subsection } : {}),
          endpoints: section?.endpoints ?? [],
          ...(stateMachines.length ? { stateMachines } : {}),
        },
      },
    };
  }
  if (query.full) return { kind: 'json', body: { data: fullReference(selected, limits) } };
  return { kind: 'json', body: { data: referenceIndex(selected, limits) } };
}
