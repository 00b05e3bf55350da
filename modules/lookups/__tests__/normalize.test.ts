import {
  emailDomain,
  isCompanyDomain,
  normalizeDomain,
  normalizeHandle,
  normalizeProfileUrl,
} from '../../../platform/shared/normalize';
import { parseRegistryAnswer } from '../../../adapters/registry/cvr-registry';

describe('normalizeDomain', () => {
  it.each([
    ['acme.dk', 'acme.dk'],
    ['ACME.dk', 'acme.dk'],
    ['www.acme.dk', 'acme.dk'],
    ['https://www.acme.dk/about?x=1#top', 'acme.dk'],
    ['http://shop.acme.dk:8080/', 'shop.acme.dk'],
    ['acme.dk.', 'acme.dk'],
    ['  www2.acme.co.uk ', 'acme.co.uk'],
    ['mailto://user@acme.dk', 'acme.dk'],
    ['', null],
    ['nodot', null],
    ['a b.dk', null],
    ['https://', null],
    ['-acme.dk', null],
    ['acme.123', null],
  ])('%s → %s', (input, expected) => expect(normalizeDomain(input)).toBe(expected));
});

describe('emailDomain and free mail', () => {
  it.each([
    ['sales@Acme.dk', 'acme.dk', true],
    ['x@gmail.com', 'gmail.com', false],
    ['x@HOTMAIL.DK', 'hotmail.dk', false],
    ['no-at-sign', null, false],
    ['@acme.dk', null, false],
  ])('%s → %s (company domain: %s)', (email, domain, company) => {
    expect(emailDomain(email)).toBe(domain);
    expect(isCompanyDomain(emailDomain(email))).toBe(company);
  });
});

describe('normalizeProfileUrl', () => {
  it.each([
    ['https://www.linkedin.com/company/acme', 'https://linkedin.com/company/acme', 'acme', 'company'],
    ['linkedin.com/company/ACME/', 'https://linkedin.com/company/acme', 'acme', 'company'],
    ['http://dk.linkedin.com/company/acme/about/?trk=x', 'https://linkedin.com/company/acme', 'acme', 'company'],
    ['https://www.linkedin.com/in/Jane-Doe-123/', 'https://linkedin.com/in/jane-doe-123', 'jane-doe-123', 'person'],
    ['https://www.linkedin.com/in/j%C3%B8rgen', 'https://linkedin.com/in/j%C3%B8rgen', 'jørgen', 'person'],
    ['https://linkedin.com/school/dtu', 'https://linkedin.com/school/dtu', 'dtu', 'company'],
    ['https://example.org/profiles/Someone/', 'https://example.org/profiles/someone', 'someone', null],
  ])('%s', (input, url, handle, kind) => expect(normalizeProfileUrl(input)).toEqual({ url, handle, kind }));

  it.each([
    '',
    'not a url',
    'ftp://linkedin.com/in/x',
    'https://linkedin.com/',
    'https://linkedin.com/feed',
    'https://linkedin.com/in/',
    'https://example.org/',
    'javascript:alert(1)',
  ])('refuses %j', (input) => expect(normalizeProfileUrl(input)).toBeNull());

  it('handles', () => {
    expect(normalizeHandle(' @Acme ')).toBe('acme');
    expect(normalizeHandle('')).toBeNull();
    expect(normalizeHandle(undefined)).toBeNull();
  });
});

describe('parseRegistryAnswer', () => {
  it('maps the cvrapi.dk shape and optional enrichment keys', () => {
    expect(
      parseRegistryAnswer({
        vat: 12345678,
        name: ' Acme ApS ',
        address: 'Vej 1',
        zipcode: 8000,
        city: 'Aarhus',
        email: 'info@acme.dk',
        industrydesc: 'Software',
        employees: '10-19',
        website: 'www.acme.dk/x',
        logo: 'https://cdn.example/logo.png',
        linkedin: 'linkedin.com/company/acme',
      }),
    ).toEqual({
      cvr: '12345678',
      name: 'Acme ApS',
      address: 'Vej 1',
      zip: '8000',
      city: 'Aarhus',
      phone: null,
      email: 'info@acme.dk',
      industry: 'Software',
      employees: 10,
      website: 'https://acme.dk',
      logoUrl: 'https://cdn.example/logo.png',
      profileUrl: 'https://linkedin.com/company/acme',
    });
  });
  it.each([[null], ['x'], [[]], [{ error: 'NOT_FOUND' }], [{ vat: 1 }], [{ name: 'No number' }]])(
    'no company in %j',
    (json) => expect(parseRegistryAnswer(json)).toBeNull(),
  );
  it('drops a non-https logo and a non-profile link', () => {
    expect(parseRegistryAnswer({ vat: 1, name: 'A', logo: 'http://x/logo.png', linkedin: 'nope' })).toMatchObject({
      logoUrl: null,
      profileUrl: null,
    });
  });
});
