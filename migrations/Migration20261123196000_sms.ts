import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123196000_sms extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sms_message" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "direction" varchar(10) not null, "from" varchar(40) not null, "to" varchar(40) not null, "body" text not null, "status" varchar(12) not null, "provider_message_id" varchar(1000) null, "unread" boolean not null default false, "starred" boolean not null default false, "phone_number" varchar(24) not null, "phone_tail" varchar(8) not null, "person_id" varchar(24) null, "company_id" varchar(24) null, "lead_id" varchar(24) null, "deal_id" varchar(24) null, "source" varchar(20) not null, "source_ref" varchar(100) null, "activity_id" varchar(24) null, "error" text null, "sent_at" timestamptz null, "delivered_at" timestamptz null, constraint "sms_message_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sms_message', [
      'created_at',
      ['phone_number', 'created_at'],
      'phone_tail',
      ['person_id', 'created_at'],
      'provider_message_id',
    ]))
      this.addSql(sql);
    // A gateway re-delivering the same inbound message stores it once.
    this.addSql(
      `create unique index "sms_message_inbound_provider_unique" on "sms_message" ("workspace_id", "provider_message_id") where "direction" = 'inbound' and "provider_message_id" is not null;`,
    );

    this.addSql(
      `create table "sms_scheduled" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "to" varchar(40) not null, "from" varchar(40) not null, "message" text not null, "send_at" timestamptz not null, "status" varchar(12) not null, "links" jsonb not null, "sms_id" varchar(24) null, "error" text null, "workflow_id" varchar(100) not null, "created_by" varchar(24) not null, "sent_at" timestamptz null, "cancelled_at" timestamptz null, constraint "sms_scheduled_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sms_scheduled', ['send_at', ['status', 'send_at']])) this.addSql(sql);

    this.addSql(
      `create table "sms_template" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "message" text not null, "category" varchar(60) null, "created_by" varchar(24) null, constraint "sms_template_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('sms_template', [], { unique: ['name'] })) this.addSql(sql);

    this.addSql(
      `create table "sms_settings" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "webhook_secret_hash" varchar(64) null, "webhook_secret_hint" varchar(8) null, constraint "sms_settings_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "sms_settings_workspace_id_index" on "sms_settings" ("workspace_id");`);
    this.addSql(
      `alter table "sms_settings" add constraint "sms_settings_workspace_id_unique" unique ("workspace_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sms_message" cascade;`);
    this.addSql(`drop table if exists "sms_scheduled" cascade;`);
    this.addSql(`drop table if exists "sms_template" cascade;`);
    this.addSql(`drop table if exists "sms_settings" cascade;`);
  }
}
