import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 27. `automation_skip`: every evaluation of an active automation's trigger that started no run
 * (reason code and the values that decided it, bounded), listed by GET /automations/:id/skips and
 * pruned after 14 days by id (ids are time-ordered). `workspace.run_retention_days`: how long finished
 * executions, their step logs and finished enrollments with their steps are kept (default 30); the
 * (workspace, finished-at) indexes let the worker's housekeeping find them in small batches.
 */
export class Migration20261127000500_automation_skips_retention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "automation_skip" (
      "id" varchar(24) not null primary key,
      "workspace_id" varchar(24) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "automation_id" varchar(24) not null,
      "trigger_type" varchar(60) not null,
      "trigger_key" varchar(100) null,
      "entity_type" varchar(40) null,
      "entity_id" varchar(64) null,
      "reason" varchar(40) not null,
      "message" varchar(300) not null,
      "details" jsonb not null default '{}'
    );`);
    this.addSql(
      `create index "automation_skip_list_index" on "automation_skip" ("workspace_id", "automation_id", "id");`,
    );
    this.addSql(
      `create index "automation_skip_record_index" on "automation_skip" ("workspace_id", "automation_id", "entity_type", "entity_id", "id");`,
    );
    this.addSql(`alter table "workspace" add column "run_retention_days" int not null default 30;`);
    this.addSql(
      `create index "automation_execution_finished_index" on "automation_execution" ("workspace_id", "finished_at") where "finished_at" is not null;`,
    );
    this.addSql(
      `create index "sequence_enrollment_finished_index" on "sequence_enrollment" ("workspace_id", "finished_at") where "finished_at" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "sequence_enrollment_finished_index";`);
    this.addSql(`drop index if exists "automation_execution_finished_index";`);
    this.addSql(`alter table "workspace" drop column "run_retention_days";`);
    this.addSql(`drop table if exists "automation_skip";`);
  }
}
