import { Migration } from '@mikro-orm/migrations';

export class Migration20261123193000_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_key" ("workspace_id" varchar(24) not null, "key" varchar(255) not null, "request_hash" char(64) not null, "state" varchar(12) not null, "lock_id" varchar(24) not null, "response_status" int null, "response_body" text null, "response_headers" jsonb null, "created_at" timestamptz not null, "completed_at" timestamptz null, constraint "idempotency_key_pkey" primary key ("workspace_id", "key"));`,
    );
    this.addSql(`create index "idempotency_key_created_at_index" on "idempotency_key" ("created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_key" cascade;`);
  }
}
