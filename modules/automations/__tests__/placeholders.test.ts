import {
  SEQUENCE_NAMESPACES,
  SEQUENCE_TOP_LEVEL_NAMES,
  listPlaceholders,
  parsePlaceholder,
  renderTemplate,
  renderValue,
  resolveDeep,
  resolveTemplate,
  resolveValue,
} from '../../../platform/shared/placeholders.pure';

const ctx = {
  lead: {
    _id: 'l1',
    title: 'Big lead',
    email: 'ann@example.com',
    score: 42,
    value: 0,
    notes: '',
    customFields: { budget: 5000, 'tier.level': 'gold' },
  },
  contact: { firstName: 'Ann', lastName: 'Berg', fullName: 'Ann Berg', email: null },
  company: { name: 'Acme & Co <Ltd>', customFields: [{ name: 'segment', value: 'SMB' }] },
  deal: {
    _id: 'd1',
    title: 'Roof',
    value: 1234.5,
    stage: 'won',
    probability: 0.8,
    createdAt: '2024-03-31T22:30:00.000Z',
    items: [
      { name: 'Tiles', qty: 3 },
      { name: 'Gutter', qty: 1 },
    ],
  },
  owner: { fullName: 'Bo Owner' },
  webhookData: { order: { id: 77, lines: ['a', 'b'] }, flag: true },
  httpResponse: { status: 201, data: { id: 'x9' } },
  lookup: {
    lookup_1: { found: true, count: 2, title: 'Other deal', items: [{ title: 'A' }, { title: 'B' }] },
    open_deals: { count: 2 },
  },
  system: { triggeredAt: new Date('2024-06-30T23:15:00Z'), entityType: 'deal', workspaceId: 'w1' },
  ai_text: 'Looks qualified',
  ai_json: { qualified: true, reason: 'budget' },
  aiOutput: { qualified: true },
  firstName: 'should never be read',
  custom: { x: 1 },
};

describe('resolveTemplate: paths and namespaces', () => {
  it.each([
    ['Hi {{contact.firstName}}', 'Hi Ann'],
    ['{{ contact.firstName }} {{contact.lastName}}', 'Ann Berg'],
    ['{{lead.score}}', '42'],
    ['{{lead.value}}', '0'],
    ['{{deal.probability}}', '0.8'],
    ['{{webhookData.flag}}', 'true'],
    ['{{webhookData.order.id}}', '77'],
    ['{{webhookData.order.lines}}', '["a","b"]'],
    ['{{deal.items.0.name}} x{{deal.items.0.qty}}', 'Tiles x3'],
    ['{{deal.items[1].name}}', 'Gutter'],
    ['{{deal.items.length}} items', '2 items'],
    ['{{lead.customFields.budget}}', '5000'],
    ['{{company.customFields.segment}}', 'SMB'],
    ['{{httpResponse.status}} {{httpResponse.data.id}}', '201 x9'],
    [
      '{{lookup.lookup_1.title}} / {{lookup.open_deals.count}} / {{lookup.lookup_1.items.1.title}}',
      'Other deal / 2 / B',
    ],
    ['{{ai_text}}', 'Looks qualified'],
    ['{{ai_json.reason}}', 'budget'],
    ['{{aiOutput.qualified}}', 'true'],
    ['{{system.triggeredAt}}', '2024-06-30T23:15:00.000Z'],
    ['{{system.workspaceId}}', 'w1'],
    ['no placeholders', 'no placeholders'],
    ['{{}} and {{ {{lead.score}}', '{{}} and {{ 42'],
  ])('%s → %s', (template, expected) => {
    expect(resolveTemplate(template, ctx)).toBe(expected);
  });

  it.each([
    ['{{firstName}}', 'bare_name'],
    ['{{custom.x}}', 'unknown_namespace'],
    ['{{lead.nothing}}', 'missing'],
    ['{{contact.email}}', 'missing'],
    ['{{lead.notes}}', 'missing'],
    ['{{lead.title.constructor}}', 'missing'],
    ['{{lead.__proto__}}', 'missing'],
    ['{{deal.items.9.name}}', 'missing'],
  ])('%s renders empty and is reported as %s', (template, reason) => {
    expect(renderTemplate(template, ctx)).toEqual({
      text: '',
      unresolved: [{ placeholder: template.slice(2, -2), reason }],
    });
  });

  it('never evaluates code', () => {
    const out = renderTemplate(
      '{{ lead.score + 1 }}{{constructor.constructor("return 1")()}}{{process.env.HOME}}',
      ctx,
    );
    expect(out.text).toBe('');
    expect(out.unresolved.map((u) => u.reason)).toEqual(['missing', 'unknown_namespace', 'unknown_namespace']);
  });

  it('leaves sequence AI blocks untouched', () => {
    expect(renderTemplate('Hi {{ai:intro}} {{contact.firstName}}', ctx)).toEqual({
      text: 'Hi {{ai:intro}} Ann',
      unresolved: [],
    });
  });

  it('can use the sequence namespaces', () => {
    const seq = {
      workspace: { name: 'WS' },
      currentDate: '2024-05-01',
      stepHistory: { lastEmail: { replied: false } },
    };
    const opts = { namespaces: SEQUENCE_NAMESPACES, topLevelNames: SEQUENCE_TOP_LEVEL_NAMES };
    expect(
      resolveTemplate('{{workspace.name}} {{currentDate|format:date}} {{stepHistory.lastEmail.replied}}', seq, opts),
    ).toBe('WS 2024-05-01 false');
  });
});

describe('resolveTemplate: filters', () => {
  it.each([
    ['{{contact.email|default:no e-mail}}', 'no e-mail'],
    ['{{contact.email | default:"no e-mail"}}', 'no e-mail'],
    ["{{contact.email | default: 'n/a' }}", 'n/a'],
    ['{{contact.email|default:"a | b"}}', 'a | b'],
    ['{{contact.email|default:N/A: none}}', 'N/A: none'],
    ['{{contact.email|default:}}', ''],
    ['{{lead.notes|default:empty}}', 'empty'],
    ['{{lead.value|default:none}}', '0'],
    ['{{contact.firstName|default:there}}', 'Ann'],
    ['{{deal.value|format:currency}}', '1.234,50 kr.'],
    ['{{deal.value | format:currency:EUR}}', '1.234,50 €'],
    ['{{deal.value|format:number}}', '1.234,5'],
    ['{{lead.nothing|default:0|format:currency}}', '0,00 kr.'],
    ['{{lead.nothing|format:currency|default:—}}', '—'],
    ['{{deal.createdAt|format:date}}', '2024-04-01'],
    ['{{deal.createdAt|format:datetime}}', '2024-04-01 00:30'],
    ['{{deal.createdAt|format:time}}', '00:30'],
    ['{{system.triggeredAt|format:date}}', '2024-07-01'],
  ])('%s → %s', (template, expected) => {
    expect(renderTemplate(template, ctx)).toEqual({ text: expected, unresolved: [] });
  });

  it('formats with explicit locale, currency and time zone', () => {
    expect(resolveTemplate('{{deal.value|format:currency}}', ctx, { locale: 'en-US', currency: 'USD' })).toBe(
      '$1,234.50',
    );
    expect(resolveTemplate('{{deal.createdAt|format:date}}', ctx, { timezone: 'America/New_York' })).toBe('2024-03-31');
    expect(resolveTemplate('{{deal.createdAt|format:datetime}}', ctx, { timezone: 'UTC' })).toBe('2024-03-31 22:30');
  });

  it('uses plain spaces (SMS stays GSM-7)', () => {
    expect(resolveTemplate('{{deal.value|format:currency}}', ctx)).not.toMatch(/[\u00a0\u202f]/);
  });

  it.each([
    ['{{deal.title|format:currency}}', 'Roof', 'format_failed'],
    ['{{deal.title|format:date}}', 'Roof', 'format_failed'],
    ['{{deal.value|format:currency:NOPE1}}', '1234.5', 'format_failed'],
    ['{{deal.value|format:roman}}', '1234.5', 'unknown_filter'],
    ['{{deal.value|upper}}', '1234.5', 'unknown_filter'],
  ])('%s keeps the raw value and reports %s', (template, text, reason) => {
    const out = renderTemplate(template, ctx);
    expect(out.text).toBe(text);
    expect(out.unresolved).toEqual([{ placeholder: template.slice(2, -2), reason }]);
  });

  it('a bare name is reported even when a default fills it', () => {
    expect(renderTemplate('{{firstName|default:there}}', ctx)).toEqual({
      text: 'there',
      unresolved: [{ placeholder: 'firstName|default:there', reason: 'bare_name' }],
    });
  });

  it('escapes substituted values for HTML, not the template', () => {
    expect(resolveTemplate('<b>{{company.name}}</b>', ctx, { escape: 'html' })).toBe(
      '<b>Acme &amp; Co &lt;Ltd&gt;</b>',
    );
    expect(resolveTemplate('<b>{{company.name}}</b>', ctx)).toBe('<b>Acme & Co <Ltd></b>');
  });
});

describe('resolveValue', () => {
  it.each([
    ['{{deal.value}}', 1234.5],
    [' {{ lead.score }} ', 42],
    ['{{webhookData.flag}}', true],
    ['{{webhookData.order}}', { id: 77, lines: ['a', 'b'] }],
    ['{{webhookData}}', ctx.webhookData],
    ['{{deal.items}}', ctx.deal.items],
    ['{{lead.nothing}}', undefined],
    ['{{lead.nothing|default:7}}', '7'],
    ['{{deal.value|format:currency}}', '1.234,50 kr.'],
    ['{{ai_json}}', { qualified: true, reason: 'budget' }],
    ['{{firstName}}', undefined],
    ['Deal {{deal.value}}', 'Deal 1234.5'],
    ['{{deal.value}}{{lead.score}}', '1234.542'],
    [15, 15],
    [null, null],
  ])('%j → %j', (template, expected) => {
    expect(resolveValue(template, ctx)).toEqual(expected);
  });

  it('reports unresolved placeholders for the step log', () => {
    expect(renderValue('{{lead.nothing}}', ctx).unresolved).toEqual([
      { placeholder: 'lead.nothing', reason: 'missing' },
    ]);
  });

  it('resolves every string of a JSON value, keeping types of whole placeholders', () => {
    const body = {
      id: '{{deal._id}}',
      amount: '{{deal.value}}',
      tags: ['{{deal.stage}}', 'x'],
      nested: { who: 'Hi {{contact.firstName}}', n: 3, miss: '{{lead.zzz}}' },
    };
    expect(resolveDeep(body, ctx)).toEqual({
      value: { id: 'd1', amount: 1234.5, tags: ['won', 'x'], nested: { who: 'Hi Ann', n: 3, miss: undefined } },
      unresolved: [{ placeholder: 'lead.zzz', reason: 'missing' }],
    });
  });
});

describe('parsing', () => {
  it('splits path and filters, honouring quotes', () => {
    expect(parsePlaceholder(' deal.value | default:"a|b" | format:currency:EUR ')).toEqual({
      expression: ' deal.value | default:"a|b" | format:currency:EUR ',
      path: 'deal.value',
      segments: ['deal', 'value'],
      filters: [
        { name: 'default', args: ['a|b'] },
        { name: 'format', args: ['currency', 'EUR'] },
      ],
    });
  });

  it('lists the placeholders of a template', () => {
    expect(listPlaceholders('{{a.b}} x {{ai:block}} {{c|default:d}}').map((p) => p.path)).toEqual(['a.b', 'c']);
  });

  it('is deterministic: the same input renders the same text every time', () => {
    const t = '{{deal.value|format:currency}} {{deal.createdAt|format:datetime}} {{deal.items}}';
    expect(new Set(Array.from({ length: 5 }, () => resolveTemplate(t, ctx))).size).toBe(1);
  });
});
