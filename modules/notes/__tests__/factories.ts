// The notes module's fixtures for the registry-walking suites (test/http/crud-contract.test.ts merges them).
import type { CrudFixture } from '../../../test/support/module-tests';

export const crudFixtures: Record<string, CrudFixture> = {
  // A note sits on exactly one record: a company of the tenant, made by its factory.
  note: {
    create: { content: 'Call back on Monday', company: '__company__' },
    update: { content: 'Renamed' },
    field: 'content',
    unchanged: 'company',
  },
};
