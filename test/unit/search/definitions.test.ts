import { ENTITIES } from '../../../app/orm';
import type { EventName } from '../../../platform/outbox/catalog';
import {
  definitionOf,
  dependentsOf,
  SEARCH_DEFINITIONS,
  SEARCH_TYPES,
  SPEC_SEARCH_TYPES,
} from '../../../search/registry';
import { settingsFor } from '../../../search/settings';
import { affectsSearch } from '../../../search/sync';

// Checks every definition, so a type added later is held to the same rules.
const properties = (def: (typeof SEARCH_DEFINITIONS)[number]): string[] => Object.keys(def.entity.meta.properties);

describe('search type definitions', () => {
  it("cover company and person at least, in the spec's order, only with registered entities", () => {
    expect(SEARCH_TYPES.slice(0, 2)).toEqual(['company', 'person']);
    const order = SEARCH_TYPES.map((t) => (SPEC_SEARCH_TYPES as readonly string[]).indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    for (const def of SEARCH_DEFINITIONS) expect(ENTITIES.tenant).toContain(def.entity);
  });

  it.each(SEARCH_DEFINITIONS.map((d) => [d.type, d] as const))(
    '%s: attributes, Postgres columns and references are consistent',
    (_type, def) => {
      const attributes = def.fields.map((f) => f.attribute);
      expect(attributes[0]).toBe('title');
      expect(new Set(attributes).size).toBe(attributes.length);
      for (const prop of def.titleFields) expect(properties(def)).toContain(prop);
      for (const field of def.fields) {
        if (Array.isArray(field.pg))
          for (const p of field.pg) if (typeof p === 'string') expect(properties(def)).toContain(p);
      }
      for (const ref of def.references ?? []) {
        expect(properties(def)).toContain(ref.property);
        expect(SEARCH_TYPES).toContain(ref.type);
        expect(def.fields.find((f) => f.attribute === ref.nameAttribute)?.pg).toBe('reference');
        expect(attributes).not.toContain(ref.idAttribute);
      }
      for (const field of def.fields.filter((f) => f.pg === 'reference'))
        expect((def.references ?? []).map((r) => r.nameAttribute)).toContain(field.attribute);
    },
  );

  it.each(SEARCH_DEFINITIONS.map((d) => [d.type, d] as const))(
    '%s: settings filter the workspace by equality only',
    (_type, def) => {
      const s = settingsFor(def);
      expect(s.filterableAttributes).toEqual([
        {
          attributePatterns: [
            'workspaceId',
            ...new Set([
              ...(def.references ?? []).map((r) => r.idAttribute),
              ...(def.parents ?? []).map((r) => r.idAttribute),
            ]),
          ],
          features: { facetSearch: false, filter: { equality: true, comparison: false } },
        },
      ]);
      expect(s.searchableAttributes).toEqual(def.fields.map((f) => f.attribute));
      expect(s.displayedAttributes).not.toContain('workspaceId');
      expect(s.typoTolerance).toMatchObject({
        enabled: true,
        minWordSizeForTypos: { oneTypo: 4, twoTypos: 8 },
        disableOnAttributes: def.fields.filter((f) => f.exact).map((f) => f.attribute),
      });
    },
  );
});

describe('which events reach the index', () => {
  const ev = (type: EventName, entityType: string, payload: Record<string, unknown> = {}) => ({
    type,
    entityType,
    payload,
  });

  it.each([
    [ev('company_created', 'company'), true],
    [ev('company_updated', 'company', { changes: { phone: { from: null, to: '1' } } }), true],
    [ev('tag_added', 'person'), true],
    [ev('person_deleted', 'person'), true],
    [ev('flow_created', 'flow'), false],
    [ev('lead_scoring_rules_changed', 'workspace'), false],
  ])('%j → %s', (event, expected) => {
    expect(affectsSearch(event)).toBe(expected);
  });

  it('a company rename reaches the documents that show the company name', () => {
    expect(dependentsOf('company').map((d) => `${d.def.type}.${d.reference.nameAttribute}`)).toEqual(
      expect.arrayContaining(['person.companyName', 'deal.companyName']),
    );
    expect(definitionOf('company').titleFields).toEqual(['name']);
  });
});
