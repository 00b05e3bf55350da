import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123198000_sequences extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sequence" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" text null, "is_active" boolean not null default false, "nodes" jsonb not null, "edges" jsonb not null, "settings" jsonb not null, "version" int not null default 1, "created_by" varchar(24) null, constraint "sequence_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sequence', ['is_active'])) this.addSql(sql);

    this.addSql(
      `create table "sequence_enrollment" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "sequence_id" varchar(24) not null, "sequence_name" varchar(200) not null, "entity_type" varchar(20) not null, "entity_id" varchar(24) not null, "person_id" varchar(24) null, "links" jsonb not null, "exclusive" boolean not null default true, "status" varchar(20) not null default 'active', "exit_reason" varchar(40) null, "source" varchar(40) not null, "current_node_id" varchar(100) null, "next_action_at" timestamptz null, "paused_until" timestamptz null, "snapshot" jsonb not null, "workflow_id" varchar(200) not null, "enrolled_at" timestamptz not null, "finished_at" timestamptz null, "error" text null, "enrolled_by" varchar(24) null, "unsubscribe_token" varchar(64) not null, constraint "sequence_enrollment_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sequence_enrollment', [['sequence_id', 'status'], 'entity_id', 'person_id']))
      this.addSql(sql);
    this.addSql(
      `alter table "sequence_enrollment" add constraint "sequence_enrollment_unsubscribe_token_unique" unique ("unsubscribe_token");`,
    );
    this.addSql(
      `create unique index "sequence_enrollment_one_running" on "sequence_enrollment" ("sequence_id", "entity_type", "entity_id") where "exclusive" and "status" in ('active', 'paused');`,
    );

    this.addSql(
      `create table "sequence_step" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "enrollment_id" varchar(24) not null, "sequence_id" varchar(24) not null, "node_id" varchar(100) not null, "node_type" varchar(20) not null, "status" varchar(20) not null, "started_at" timestamptz not null, "ended_at" timestamptz null, "output" jsonb null, "error" text null, "handle" varchar(10) null, "message_id" varchar(24) null, "sent_at" timestamptz null, "opened_at" timestamptz null, "clicked_at" timestamptz null, "replied_at" timestamptz null, constraint "sequence_step_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sequence_step', [['sequence_id', 'node_id'], 'enrollment_id'])) this.addSql(sql);
    this.addSql(
      `create index "sequence_step_message_id_index" on "sequence_step" ("message_id") where "message_id" is not null;`,
    );
    this.addSql(
      `alter table "sequence_step" add constraint "sequence_step_enrollment_id_node_id_unique" unique ("enrollment_id", "node_id");`,
    );

    this.addSql(
      `create table "sequence_opt_out" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "entity_type" varchar(20) not null, "entity_id" varchar(24) not null, "enrollment_id" varchar(24) null, constraint "sequence_opt_out_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sequence_opt_out', [], { unique: [['entity_type', 'entity_id']] }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sequence" cascade;`);
    this.addSql(`drop table if exists "sequence_enrollment" cascade;`);
    this.addSql(`drop table if exists "sequence_step" cascade;`);
    this.addSql(`drop table if exists "sequence_opt_out" cascade;`);
  }
}
