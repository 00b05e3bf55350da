import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220800_email_bulk extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "email_bulk" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "account_id" varchar(24) not null, "subject" varchar(1000) not null, "html" text null, "text" text null, "track_opens" boolean not null default false, "immediate" boolean not null default false, "status" varchar(12) not null, "total" int not null, "workflow_id" varchar(200) null, "created_by" varchar(24) not null, "error" text null, "finished_at" timestamptz null, constraint "email_bulk_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('email_bulk', ['created_at'])) this.addSql(sql);

    this.addSql(
      `create table "email_bulk_recipient" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "bulk_id" varchar(24) not null, "index" int not null, "email" varchar(320) not null, "name" varchar(200) null, "person_id" varchar(24) null, "company_id" varchar(24) null, "personalized_subject" varchar(1000) null, "personalized_html" text null, "status" varchar(10) not null, "email_id" varchar(24) null, "error" text null, "sent_at" timestamptz null, constraint "email_bulk_recipient_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('email_bulk_recipient', [['bulk_id', 'status']])) this.addSql(sql);
    this.addSql(
      `alter table "email_bulk_recipient" add constraint "email_bulk_recipient_bulk_id_index_unique" unique ("bulk_id", "index");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "email_bulk_recipient" cascade;`);
    this.addSql(`drop table if exists "email_bulk" cascade;`);
  }
}
