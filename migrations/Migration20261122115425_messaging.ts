import { Migration } from '@mikro-orm/migrations';

export class Migration20261122115425_messaging extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "outbound_message" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "channel" varchar(10) not null, "idempotency_key" varchar(200) null, "status" varchar(10) not null, "source" varchar(20) not null, "recipients" jsonb not null, "activity_id" varchar(24) not null, "provider_message_id" varchar(1000) null, "result" jsonb null, "error" text null, "attempts" int not null default 1, "claimed_at" timestamptz not null, "sent_at" timestamptz null, constraint "outbound_message_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "outbound_message_workspace_id_index" on "outbound_message" ("workspace_id");`);
    this.addSql(
      `create index "outbound_message_workspace_id_created_at_index" on "outbound_message" ("workspace_id", "created_at");`,
    );
    this.addSql(
      `alter table "outbound_message" add constraint "outbound_message_workspace_id_idempotency_key_unique" unique ("workspace_id", "idempotency_key");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "outbound_message" cascade;`);
  }
}
