// The projects module's fixtures for the registry-walking suites (test/http/crud-contract.test.ts merges them).
import type { CrudFixture } from '../../../test/support/module-tests';

export const crudFixtures: Record<string, CrudFixture> = {
  // A clip card belongs to a project of the tenant, made by its factory.
  'clip-card': {
    create: { project: '__project__', totalHours: 10, hourlyRate: 900 },
    update: { title: 'Renamed' },
    field: 'title',
    unchanged: 'totalHours',
  },
};
