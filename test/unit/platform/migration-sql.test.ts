import { tenantIndexes } from '../../../platform/orm/migration-sql';

// The statements MikroORM's migration generator wrote for these tables (migrations/Migration20261122110301_timeline.ts
// before it used the helper): the helper must name and list them exactly so.
it('tenantIndexes writes the generator statements: workspace index, further indexes, unique constraints', () => {
  expect(tenantIndexes('call', ['started_at', ['owner_id', 'start']], { unique: ['external_id'] })).toEqual([
    'create index "call_workspace_id_index" on "call" ("workspace_id");',
    'create index "call_workspace_id_started_at_index" on "call" ("workspace_id", "started_at");',
    'create index "call_workspace_id_owner_id_start_index" on "call" ("workspace_id", "owner_id", "start");',
    'alter table "call" add constraint "call_workspace_id_external_id_unique" unique ("workspace_id", "external_id");',
  ]);
});

it('tenantIndexes leaves out the workspace-only index when asked', () => {
  expect(tenantIndexes('note', ['lead_ref'], { workspaceIndex: false })).toEqual([
    'create index "note_workspace_id_lead_ref_index" on "note" ("workspace_id", "lead_ref");',
  ]);
});
