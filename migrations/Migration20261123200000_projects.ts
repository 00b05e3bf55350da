import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123200000_projects extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "project" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(300) not null, "description" text null, "status" varchar(20) not null default 'active', "priority" varchar(10) not null default 'medium', "owner" varchar(24) not null, "tags" text[] not null default '{}', "custom_fields" jsonb not null default '{}', "company" varchar(24) null, "person_ref" varchar(24) null, "deal_ref" varchar(24) null, "start_date" timestamptz null, "end_date" timestamptz null, "budget" jsonb null, "stage" int not null, "min_time_entry_words" int null, constraint "project_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('project', ['created_at', 'status', 'company'])) this.addSql(sql);

    this.addSql(
      `create table "project_comment" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "project_id" varchar(24) not null, "task_id" varchar(24) not null, "content" text not null, "internal" boolean not null default false, "visibility" varchar(10) not null default 'customer', "author_id" varchar(24) not null, constraint "project_comment_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('project_comment', [['task_id', 'created_at']])) this.addSql(sql);

    this.addSql(
      `create table "project_time_entry" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "project_id" varchar(24) not null, "task_id" varchar(24) null, "hours" double precision not null, "description" text null, "date" timestamptz not null, "billable" boolean not null default true, "user_id" varchar(24) not null, "clip_card_id" varchar(24) null, constraint "project_time_entry_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('project_time_entry', [['project_id', 'date']])) this.addSql(sql);

    this.addSql(
      `create table "clip_card" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "project_id" varchar(24) not null, "title" varchar(300) null, "total_hours" double precision not null, "used_hours" double precision not null default 0, "hourly_rate" double precision not null, "allow_overdraft" boolean not null default false, "overdraft_rate" double precision null, "expires_at" timestamptz null, "notes" text null, "cancelled_at" timestamptz null, constraint "clip_card_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('clip_card', [['project_id', 'created_at']])) this.addSql(sql);

    this.addSql(
      `alter table "task" add column "start_date" timestamptz null, add column "task_type" varchar(100) null, add column "billable" boolean null, add column "order" double precision null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "task" drop column "start_date", drop column "task_type", drop column "billable", drop column "order";`,
    );
    this.addSql(`drop table if exists "clip_card" cascade;`);
    this.addSql(`drop table if exists "project_time_entry" cascade;`);
    this.addSql(`drop table if exists "project_comment" cascade;`);
    this.addSql(`drop table if exists "project" cascade;`);
  }
}
