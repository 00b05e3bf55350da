import { companyDomainOf, emailDomain, parseDecimal, splitTags, websiteDomain } from '../values';
import { cvrCompatible } from '../matching';
import { normalizeInbound, normalizeName } from '../payload';
import { CONNECTOR_KEYS, inboundBody, INBOUND_KEYS } from '../inbound.schemas';

describe('parseDecimal', () => {
  it.each([
    ['1234', 1234],
    ['-12', -12],
    ['1234.50', 1234.5],
    ['1234,50', 1234.5],
    ['1.234,50', 1234.5],
    ['1,234.50', 1234.5],
    ['1.234.567', 1234567],
    ['1,234,567', 1234567],
    ['1.234.567,89', 1234567.89],
    ['1 234,50', 1234.5],
    ['1\u00a0234', 1234],
    ['1.234', 1.234],
    ['0,5', 0.5],
  ])('%s → %d', (input, expected) => expect(parseDecimal(input)).toBe(expected));

  it.each(['abc', '', '1,2,3', '12.5kr', '1.2.3,4.5', '1,234,56', '--1', '1e5', '0x10', '12,'])(
    '%j is not a number',
    (input) => {
      expect(parseDecimal(input)).toBeUndefined();
    },
  );
});

describe('tags and domains', () => {
  it('splits comma strings and cleans arrays', () => {
    expect(splitTags('vip, web,, form ')).toEqual(['vip', 'web', 'form']);
    expect(splitTags([' a ', '', 'b'])).toEqual(['a', 'b']);
  });

  it.each([
    ['Jane@Acme.DK', 'acme.dk'],
    ['no-at-sign', undefined],
    ['x@localhost', undefined],
    [null, undefined],
  ])('emailDomain(%j) = %j', (input, expected) => expect(emailDomain(input)).toBe(expected));

  it.each([
    ['https://www.Acme.dk/about?x=1', 'acme.dk'],
    ['acme.dk', 'acme.dk'],
    ['http://shop.acme.dk:8080', 'shop.acme.dk'],
    ['www.acme.dk#top', 'acme.dk'],
    ['not a site', undefined],
  ])('websiteDomain(%j) = %j', (input, expected) => expect(websiteDomain(input)).toBe(expected));

  it('free-mail domains never identify a company', () => {
    for (const address of ['a@gmail.com', 'a@HOTMAIL.com', 'a@outlook.com', 'a@yahoo.com', 'a@icloud.com'])
      expect(companyDomainOf(address)).toBeUndefined();
    expect(companyDomainOf('a@acme.dk')).toBe('acme.dk');
  });
});

describe('matching rules (pure part)', () => {
  it.each([
    [undefined, null, true],
    [undefined, '111', true],
    ['111', null, true],
    ['111', '111', true],
    ['111', '222', false],
  ])('payload cvr %j vs company cvr %j: a domain/name match counts = %j', (cvr, companyCvr, expected) => {
    expect(cvrCompatible(cvr)({ cvr: companyCvr })).toBe(expected);
  });
});

describe('normalizeInbound', () => {
  it('maps names case-insensitively, ignoring spaces, dashes, underscores and dots; aliases; first occurrence wins', () => {
    expect(normalizeName('Company_Name')).toBe('companyname');
    const { values, format } = normalizeInbound(
      {
        'Company Name': 'Acme',
        'person.email': 'a@acme.dk',
        'E-mail': 'second@acme.dk',
        CVR: '123',
        Message: 'hi',
        unknown: 'x',
      },
      INBOUND_KEYS,
    );
    expect(format).toBe('flat');
    expect(values).toEqual({ companyName: 'Acme', personEmail: 'a@acme.dk', companyCvr: '123', leadNotes: 'hi' });
  });

  it('collects customFields from an object and from customFields.<key> / customFields[<key>] names', () => {
    const { values } = normalizeInbound(
      { customFields: { a: 1 }, 'customFields.b': 2, 'customFields[c]': 'three', 'custom_fields.a': 'ignored' },
      INBOUND_KEYS,
    );
    expect(values.customFields).toEqual({ a: 1, b: 2, c: 'three' });
  });

  it('reads a form-builder payload: name, key or label, typed values as text, formName/formId as label', () => {
    const out = normalizeInbound(
      {
        formId: 'f1',
        fields: [
          { name: 'q_17', label: 'Company', value: 'Acme' },
          { key: 'dealValue', value: 1200 },
          { label: 'Tags', value: ['a', 'b'] },
          { name: 'Interests', label: 'Lead notes', value: ['x', 'y'] },
          { name: 'Consent', value: true },
          { name: 'customFields.newsletter', value: true },
        ],
      },
      INBOUND_KEYS,
    );
    expect(out).toEqual({
      format: 'form-builder',
      formLabel: 'f1',
      values: {
        companyName: 'Acme',
        dealValue: '1200',
        tags: ['a', 'b'],
        leadNotes: 'x, y',
        customFields: { newsletter: true },
      },
    });
    expect(
      normalizeInbound({ data: { formName: 'Contact', fields: [{ name: 'email', value: 'a@b.dk' }] } }, INBOUND_KEYS),
    ).toMatchObject({ formLabel: 'Contact', values: { personEmail: 'a@b.dk' } });
  });

  it.each([
    ['an array', [1]],
    ['a number', 5],
    ['null', null],
    ['a non-JSON string', 'hello'],
  ])('refuses a body that is %s', (_label, body) => {
    expect(() => normalizeInbound(body, INBOUND_KEYS)).toThrow(/body: /);
  });

  it('uses the connector key table for the connector', () => {
    expect(normalizeInbound({ FirstName: 'Zed', mail: 'z@x.dk', Amount: '5' }, CONNECTOR_KEYS).values).toEqual({
      firstName: 'Zed',
      email: 'z@x.dk',
      dealValue: '5',
    });
  });
});

describe('inbound body schema', () => {
  it('treats blanks as not given, lower-cases e-mails, parses amounts and tag strings', () => {
    const parsed = inboundBody.parse({
      companyName: '  ',
      personEmail: ' A@B.DK ',
      dealValue: '1.234,50',
      tags: 'x, y',
      leadTitle: null,
    });
    expect(parsed).toMatchObject({
      companyName: undefined,
      personEmail: 'a@b.dk',
      dealValue: 1234.5,
      tags: ['x', 'y'],
      leadTitle: undefined,
    });
  });

  it.each([
    [{ dealValue: 'abc' }, 'dealValue'],
    [{ dealValue: -1 }, 'dealValue'],
    [{ dealValue: 1e16 }, 'dealValue'],
    [{ companyName: 12 }, 'companyName'],
    [{ personEmail: 'x' }, 'personEmail'],
    [{ tags: [1] }, 'tags'],
    [{ dealStageId: 'short' }, 'dealStageId'],
  ])('%j fails on %s', (input, path) => {
    const parsed = inboundBody.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path[0]).toBe(path);
  });
});
