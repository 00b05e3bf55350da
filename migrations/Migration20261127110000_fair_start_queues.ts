import { Migration } from '@mikro-orm/migrations';

/**
 * The starter's fair claims (domain/intake/fair-pick.ts) find the workspaces with queued starts by a skip scan and take
 * each one's oldest queued rows: a partial `(workspace_id, id)` index of the queued rows of each start queue.
 */
export class Migration20261127110000_fair_start_queues extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists "automation_execution_queued_workspace_index" on "automation_execution" ("workspace_id", "id") where "status" = 'queued';`,
    );
    this.addSql(
      `create index if not exists "sequence_enrollment_start_queued_workspace_index" on "sequence_enrollment" ("workspace_id", "id") where "start_queued";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "sequence_enrollment_start_queued_workspace_index";`);
    this.addSql(`drop index if exists "automation_execution_queued_workspace_index";`);
  }
}
