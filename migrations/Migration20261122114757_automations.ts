import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122114757_automations extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "automation" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" text null, "is_active" boolean not null default false, "nodes" jsonb not null, "edges" jsonb not null, "execution_settings" jsonb not null, "rate_limits" jsonb not null, "trigger_type" varchar(60) null, "version" int not null default 1, "total_runs" int not null default 0, "skipped_runs" int not null default 0, "last_skip_reason" varchar(300) null, "last_skipped_at" timestamptz null, "deactivated_reason" varchar(300) null, "created_by" varchar(24) null, constraint "automation_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('automation', [['is_active', 'trigger_type']])) this.addSql(sql);

    this.addSql(
      `create table "automation_execution" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "automation_id" varchar(24) not null, "automation_name" varchar(200) not null, "automation_version" int not null, "graph" jsonb not null, "status" varchar(20) not null default 'running', "trigger_type" varchar(60) not null, "trigger_key" varchar(100) not null, "entity_type" varchar(40) null, "entity_id" varchar(64) null, "context" jsonb not null, "is_test" boolean not null default false, "workflow_id" varchar(200) not null, "parent_execution_id" varchar(24) null, "started_at" timestamptz not null, "finished_at" timestamptz null, "duration_ms" int null, "error" text null, constraint "automation_execution_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "automation_execution_workspace_id_index" on "automation_execution" ("workspace_id");`);
    this.addSql(
      `create index "automation_execution_workspace_id_automation_id_st_beb49_index" on "automation_execution" ("workspace_id", "automation_id", "status", "started_at");`,
    );
    this.addSql(
      `create index "automation_execution_workspace_id_status_index" on "automation_execution" ("workspace_id", "status");`,
    );
    this.addSql(
      `create index "automation_execution_parent_execution_id_index" on "automation_execution" ("parent_execution_id");`,
    );
    this.addSql(
      `alter table "automation_execution" add constraint "automation_execution_automation_id_trigger_key_unique" unique ("automation_id", "trigger_key");`,
    );

    this.addSql(
      `create table "automation_step" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "execution_id" varchar(24) not null, "node_id" varchar(100) not null, "node_type" varchar(20) not null, "action_type" varchar(60) null, "status" varchar(20) not null, "attempt" int not null default 1, "started_at" timestamptz not null, "ended_at" timestamptz null, "input" jsonb null, "output" jsonb null, "error" text null, "handle" varchar(20) null, constraint "automation_step_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('automation_step', ['execution_id'])) this.addSql(sql);
    this.addSql(
      `alter table "automation_step" add constraint "automation_step_execution_id_node_id_unique" unique ("execution_id", "node_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "automation" cascade;`);

    this.addSql(`drop table if exists "automation_execution" cascade;`);

    this.addSql(`drop table if exists "automation_step" cascade;`);
  }
}
