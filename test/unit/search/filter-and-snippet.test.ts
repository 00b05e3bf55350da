import { equals, filterValue } from '../../../search/meili';
import { workspaceFilter } from '../../../search/query';
import { markedToHtml, POST, PRE, snippetAround } from '../../../search/snippet';

const WS = '0123456789abcdef01234567';

describe('search filters: user text can never become filter syntax', () => {
  it.each([
    ['plain', 'abc', '"abc"'],
    ['a quote', 'x" OR workspaceId = "y', '"x\\" OR workspaceId = \\"y"'],
    ['a backslash before a quote', 'x\\" OR a = "b', '"x\\\\\\" OR a = \\"b"'],
    ['a trailing backslash', 'x\\', '"x\\\\"'],
  ])('quotes %s', (_case, value, expected) => {
    expect(filterValue(value)).toBe(expected);
  });

  it('workspaceFilter is the workspace equality, plus extra clauses built by code', () => {
    expect(workspaceFilter(WS)).toBe(`workspaceId = "${WS}"`);
    expect(workspaceFilter(WS, equals('companyId', 'abc'))).toBe(`workspaceId = "${WS}" AND companyId = "abc"`);
  });

  it.each([[''], ['not-an-id'], [`${WS}" OR workspaceId = "x`], [WS.toUpperCase()]])(
    'refuses a workspace id that is not a 24-hex id: %s',
    (ws) => {
      expect(() => workspaceFilter(ws)).toThrow(/24-hex/);
    },
  );

  it('refuses attribute names that are not plain identifiers', () => {
    expect(() => equals('a = "b" OR c', 'x')).toThrow(/not a filterable attribute/);
  });
});

describe('snippets', () => {
  it('escapes record text and turns the match markers into <mark>', () => {
    expect(markedToHtml(`<img src=x onerror=alert(1)> ${PRE}Acme${POST} & "Co"`)).toBe(
      '&lt;img src=x onerror=alert(1)&gt; <mark>Acme</mark> &amp; &quot;Co&quot;',
    );
  });

  it('degraded mode crops around the first case-insensitive match', () => {
    expect(snippetAround('Hello Acme world', 'acme')).toBe('Hello <mark>Acme</mark> world');
    const long = `${'a'.repeat(100)} needle ${'b'.repeat(100)}`;
    expect(snippetAround(long, 'NEEDLE', 10)).toBe(`…${'a'.repeat(9)} <mark>needle</mark> ${'b'.repeat(9)}…`);
    expect(snippetAround('no match', 'zzz')).toBeNull();
    expect(snippetAround('<b>x</b>', 'x')).toBe('&lt;b&gt;<mark>x</mark>&lt;/b&gt;');
  });
});
