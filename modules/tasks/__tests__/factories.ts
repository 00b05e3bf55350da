// The tasks module's fixtures for the registry-walking suites (test/http/crud-contract.test.ts merges them).
import type { CrudFixture } from '../../../test/support/module-tests';

export const crudFixtures: Record<string, CrudFixture> = {
  // A task has exactly one parent: a company of the tenant, made by its factory.
  task: {
    create: { title: 'Send the quote', company: '__company__' },
    update: { title: 'Renamed' },
    field: 'title',
    unchanged: 'company',
  },
};
