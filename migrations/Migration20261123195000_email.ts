import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123195000_email extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "email_account" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "email_address" varchar(254) not null, "display_name" varchar(200) null, "smtp_host" varchar(255) not null, "smtp_port" int not null, "smtp_secure" boolean not null, "smtp_user" varchar(320) null, "imap_host" varchar(255) null, "imap_port" int null, "imap_secure" boolean not null default true, "imap_user" varchar(320) null, "secrets" text null, "inbound_secret_hash" varchar(64) not null, "shared" boolean not null default false, "user_ids" text[] not null default '{}', "status" varchar(20) not null default 'untested', "last_tested_at" timestamptz null, "last_error" text null, "imap_uid_validity" varchar(40) null, "imap_last_uid" int null, constraint "email_account_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('email_account', [], { unique: ['email_address'] })) this.addSql(sql);

    this.addSql(
      `create table "email" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "account_id" varchar(24) null, "direction" varchar(10) not null, "status" varchar(10) not null, "from_address" varchar(500) not null, "to" jsonb not null, "cc" jsonb not null, "bcc" jsonb not null, "subject" varchar(1000) not null, "html" text null, "text" text null, "message_id" varchar(1000) null, "in_reply_to" varchar(1000) null, "references" jsonb not null, "thread_id" varchar(24) not null, "person_id" varchar(24) null, "company_id" varchar(24) null, "deal_id" varchar(24) null, "lead_id" varchar(24) null, "source" varchar(20) null, "source_ref" varchar(200) null, "activity_id" varchar(24) null, "track_opens" boolean not null default false, "open_count" int not null default 0, "click_count" int not null default 0, "first_opened_at" timestamptz null, "error" text null, "user_id" varchar(24) null, "date" timestamptz not null, "calendar_invite" text null, constraint "email_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('email', ['created_at', 'thread_id', 'message_id', 'person_id', 'account_id']))
      this.addSql(sql);
    // A received message is stored once per mailbox, even when two deliveries race.
    this.addSql(
      `create unique index "email_inbound_message_unique" on "email" ("workspace_id", "account_id", "message_id") where "direction" = 'inbound';`,
    );

    this.addSql(
      `create table "email_template" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "category" varchar(20) not null default 'other', "body_html" text null, "body_css" text null, "compiled_html" text null, "compiled_by_server" boolean not null default true, "plain_text" text null, "metadata" jsonb not null default '{}', "layout_settings" jsonb not null default '{}', "project_data" jsonb null, "tags" text[] not null default '{}', "created_by" varchar(24) null, constraint "email_template_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('email_template', ['created_at'])) this.addSql(sql);

    this.addSql(
      `create table "email_signature" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "content" text not null, "text_content" text null, "owner_id" varchar(24) null, constraint "email_signature_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('email_signature', ['created_at'])) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "email_signature" cascade;`);
    this.addSql(`drop table if exists "email_template" cascade;`);
    this.addSql(`drop table if exists "email" cascade;`);
    this.addSql(`drop table if exists "email_account" cascade;`);
  }
}
