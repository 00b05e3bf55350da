import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122110301_timeline extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "calendar_event" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(500) not null, "description" text null, "type" varchar(20) not null default 'meeting', "start" timestamptz not null, "end" timestamptz not null, "all_day" boolean not null default false, "location" varchar(500) null, "attendees" jsonb not null default '[]', "company_id" varchar(24) null, "person_id" varchar(24) null, "lead_id" varchar(24) null, "deal_id" varchar(24) null, "owner_id" varchar(24) not null, "reminder_minutes" int null, constraint "calendar_event_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('calendar_event', ['start', ['owner_id', 'start']])) this.addSql(sql);

    this.addSql(
      `create table "call" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "subject" varchar(300) null, "phone" varchar(50) not null, "direction" varchar(10) not null, "status" varchar(20) not null, "duration" int not null default 0, "started_at" timestamptz not null, "notes" text null, "outcome" varchar(200) null, "company_id" varchar(24) null, "person_id" varchar(24) null, "lead_id" varchar(24) null, "deal_id" varchar(24) null, "owner_id" varchar(24) null, "external_id" varchar(200) null, "transcript_text" text null, "transcript_summary" text null, "transcript_status" varchar(20) not null default 'none', "conversation" jsonb not null default '[]', "language_code" varchar(20) null, "recording_url" varchar(2048) null, "recording_pending" boolean not null default false, "activity_id" varchar(24) null, constraint "call_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes(
      'call',
      ['started_at', 'updated_at', 'person_id', 'company_id', 'lead_id', 'deal_id'],
      { unique: ['external_id'] },
    ))
      this.addSql(sql);

    this.addSql(
      `create table "note" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "content" text not null, "company" varchar(24) null, "person_ref" varchar(24) null, "lead_ref" varchar(24) null, "deal_ref" varchar(24) null, "custom_object_record" varchar(24) null, "custom_object_slug" varchar(100) null, "owner_id" varchar(24) null, "activity_id" varchar(24) null, constraint "note_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('note', ['updated_at', 'company', 'person_ref', 'lead_ref', 'deal_ref']))
      this.addSql(sql);

    this.addSql(
      `create table "task" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(500) not null, "description" text null, "status" varchar(20) not null default 'to_do', "stage" int not null, "priority" varchar(10) not null default 'medium', "assignees" text[] not null default '{}', "owner" varchar(24) not null, "deadline" timestamptz null, "tags" text[] not null default '{}', "custom_fields" jsonb not null default '{}', "estimated_hours" double precision null, "task_value" double precision null, "project" varchar(24) null, "custom_object_record" varchar(24) null, "custom_object_slug" varchar(100) null, "company" varchar(24) null, "person_ref" varchar(24) null, "lead_ref" varchar(24) null, "deal_ref" varchar(24) null, "completed_at" timestamptz null, constraint "task_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('task', ['updated_at', 'owner', 'status', 'project', 'deadline'])) this.addSql(sql);

    this.addSql(
      `create table "task_flow" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "stages" jsonb not null, "completed_stage_id" int not null, constraint "task_flow_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "task_flow_workspace_id_index" on "task_flow" ("workspace_id");`);
    this.addSql(`alter table "task_flow" add constraint "task_flow_workspace_id_unique" unique ("workspace_id");`);

    this.addSql(
      `alter table "activity" add column "call_ref" varchar(24) null, add column "task_ref" varchar(24) null, add column "owner_id" varchar(24) null;`,
    );
    // Rows written before owners existed belong to whoever recorded them.
    this.addSql(`update "activity" set "owner_id" = "user_id" where "owner_id" is null;`);
    for (const sql of tenantIndexes('activity', [['system', 'date'], 'note_ref', 'call_ref'], {
      workspaceIndex: false,
    }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "calendar_event" cascade;`);

    this.addSql(`drop table if exists "call" cascade;`);

    this.addSql(`drop table if exists "note" cascade;`);

    this.addSql(`drop table if exists "task" cascade;`);

    this.addSql(`drop table if exists "task_flow" cascade;`);

    this.addSql(`drop index "activity_workspace_id_system_date_index";`);
    this.addSql(`drop index "activity_workspace_id_note_ref_index";`);
    this.addSql(`drop index "activity_workspace_id_call_ref_index";`);
    this.addSql(`alter table "activity" drop column "call_ref", drop column "task_ref", drop column "owner_id";`);
  }
}
