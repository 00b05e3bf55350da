import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220500_support extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "support_flow" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "stages" jsonb not null, "categories" jsonb not null, "mailbox_account_ids" text[] not null default '{}', "ticket_seq" int not null default 0, constraint "support_flow_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "support_flow_workspace_id_index" on "support_flow" ("workspace_id");`);
    this.addSql(
      `alter table "support_flow" add constraint "support_flow_workspace_id_unique" unique ("workspace_id");`,
    );

    this.addSql(
      `create table "support_ticket" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "ticket_number" int not null, "title" varchar(300) not null, "description" text null, "status" varchar(20) not null default 'open', "priority" varchar(10) not null default 'medium', "category" varchar(100) not null, "assignee" varchar(24) null, "company" varchar(24) null, "person_ref" varchar(24) null, "customer_email" varchar(320) null, "customer_name" varchar(300) null, "visitor_id" varchar(100) null, "tags" text[] not null default '{}', "custom_fields" jsonb not null default '{}', "resolution" text null, "flow_id" varchar(24) not null, "stage_id" int not null, "source" varchar(10) not null default 'api', "unread_count" int not null default 0, "last_activity_at" timestamptz not null, "first_response_at" timestamptz null, "resolved_at" timestamptz null, "closed_at" timestamptz null, constraint "support_ticket_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('support_ticket', ['created_at', 'status', 'person_ref', 'customer_email'], {
      unique: ['ticket_number'],
    }))
      this.addSql(sql);

    this.addSql(
      `create table "support_ticket_message" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "ticket_id" varchar(24) not null, "type" varchar(20) not null, "visibility" varchar(10) not null, "direction" varchar(10) not null, "content" text not null, "author_user_id" varchar(24) null, "from_address" varchar(500) null, "email_id" varchar(24) null, "message_id" varchar(1000) null, constraint "support_ticket_message_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('support_ticket_message', [['ticket_id', 'created_at'], 'message_id']))
      this.addSql(sql);
    this.addSql(
      `create unique index "support_ticket_message_email_unique" on "support_ticket_message" ("workspace_id", "email_id") where "email_id" is not null;`,
    );

    this.addSql(
      `create table "support_time_entry" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "ticket_id" varchar(24) not null, "hours" double precision not null, "description" text null, "date" timestamptz not null, "billable" boolean not null default true, "user_id" varchar(24) not null, constraint "support_time_entry_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('support_time_entry', [['ticket_id', 'date']])) this.addSql(sql);

    this.addSql(
      `create table "project_template" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(300) not null, "description" text null, "flow_ref" varchar(100) null, "task_templates" jsonb not null default '[]', "milestone_templates" jsonb not null default '[]', "project_data" jsonb not null default '{}', "portal_settings" jsonb not null default '{}', "is_default" boolean not null default false, "is_active" boolean not null default true, "created_by" varchar(24) not null, constraint "project_template_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('project_template', [['is_active', 'name']])) this.addSql(sql);

    this.addSql(
      `alter table "project" add column "template_ref" varchar(24) null, add column "offer_ref" varchar(100) null, add column "lead_ref" varchar(24) null, add column "lines" jsonb not null default '[]', add column "milestones" jsonb not null default '[]', add column "portal_settings" jsonb null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "project" drop column "template_ref", drop column "offer_ref", drop column "lead_ref", drop column "lines", drop column "milestones", drop column "portal_settings";`,
    );
    this.addSql(`drop table if exists "project_template" cascade;`);
    this.addSql(`drop table if exists "support_time_entry" cascade;`);
    this.addSql(`drop table if exists "support_ticket_message" cascade;`);
    this.addSql(`drop table if exists "support_ticket" cascade;`);
    this.addSql(`drop table if exists "support_flow" cascade;`);
  }
}
