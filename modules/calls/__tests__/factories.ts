// The calls module's fixtures for the registry-walking suites (test/http/crud-contract.test.ts merges them).
import type { CrudFixture } from '../../../test/support/module-tests';

export const crudFixtures: Record<string, CrudFixture> = {
  call: {
    create: { phone: '+45 12 34 56 78', subject: 'Renewal', direction: 'inbound' },
    update: { subject: 'Renamed' },
    field: 'subject',
    unchanged: 'phone',
  },
};
