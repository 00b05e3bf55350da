import { Migration } from '@mikro-orm/migrations';

/**
 * Durable intake: API starts commit an execution row with status `queued` and answer; the worker's
 * starter claims queued rows (lease in `start_lease_until`, FOR UPDATE SKIP LOCKED) and starts their
 * workflows. `run_counted` is false for rows whose automation's totalRuns the starter still has to add.
 */
export class Migration20261125000100_execution_intake extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "automation_execution" add column "start_lease_until" timestamptz null, add column "run_counted" boolean not null default true;`,
    );
    this.addSql(
      `create index "automation_execution_queued_index" on "automation_execution" ("id") where "status" = 'queued';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "automation_execution_queued_index";`);
    this.addSql(`alter table "automation_execution" drop column "start_lease_until", drop column "run_counted";`);
  }
}
