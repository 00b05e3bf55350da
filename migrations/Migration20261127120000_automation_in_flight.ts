import { Migration } from '@mikro-orm/migrations';

/**
 * The per-workspace cap on automation runs in flight (domain/automations/engine/in-flight.ts) counts a workspace's
 * running rows started within a window: a partial `(workspace_id, updated_at)` index of the running rows, so the count
 * reads only the recent ones (a workspace with many runs parked on long delays does not make it slower).
 */
export class Migration20261127120000_automation_in_flight extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists "automation_execution_running_workspace_index" on "automation_execution" ("workspace_id", "updated_at") where "status" = 'running';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "automation_execution_running_workspace_index";`);
  }
}
