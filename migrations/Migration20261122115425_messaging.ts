import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122115425_messaging extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "outbound_message" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "channel" varchar(10) not null, "idempotency_key" varchar(200) null, "status" varchar(10) not null, "source" varchar(20) not null, "recipients" jsonb not null, "activity_id" varchar(24) not null, "provider_message_id" varchar(1000) null, "result" jsonb null, "error" text null, "attempts" int not null default 1, "claimed_at" timestamptz not null, "sent_at" timestamptz null, constraint "outbound_message_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('outbound_message', ['created_at'], { unique: ['idempotency_key'] }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "outbound_message" cascade;`);
  }
}
