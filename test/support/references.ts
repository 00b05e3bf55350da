// Bad parent references shared by the timeline records that hang off one parent (notes, tasks).

/** A well-formed id no record has. */
export const MISSING_ID = '0123456789abcdef01234567';

/**
 * The 400 cases of `body` with one parent reference that names no record of the workspace: a company,
 * person, lead or deal, and a custom object record (without its slug; with `slug`, an object that has no
 * records yet). Each case: its name, the body (built when the test runs), the error.
 */
export const unknownParentCases = (
  body: Record<string, unknown>,
  slug: string,
  /** A record of the caller's workspace: references are checked before the slug rule, so a missing id fails first. */
  realRecord: () => string,
): [string, () => Record<string, unknown>, RegExp][] => [
  ['unknown company', () => ({ ...body, company: MISSING_ID }), /company: no company with id/],
  ['unknown person', () => ({ ...body, personRef: MISSING_ID }), /personRef: no person with id/],
  ['unknown lead', () => ({ ...body, leadRef: MISSING_ID }), /leadRef: no lead with id/],
  ['unknown deal', () => ({ ...body, dealRef: MISSING_ID }), /dealRef: no deal with id/],
  [
    'customObjectRecord without slug',
    () => ({ ...body, customObjectRecord: realRecord() }),
    /customObjectSlug: is required/,
  ],
  [
    'customObjectRecord with slug (none exist yet)',
    () => ({ ...body, customObjectRecord: MISSING_ID, customObjectSlug: slug }),
    /customObjectRecord: no custom object record with id/,
  ],
];
