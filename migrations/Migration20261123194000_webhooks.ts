import { Migration } from '@mikro-orm/migrations';

export class Migration20261123194000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_subscription" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) null, "url" varchar(2048) not null, "events" text[] not null, "active" boolean not null default true, "secret" text not null, "previous_secret" text null, "previous_secret_expires_at" timestamptz null, "disabled_reason" varchar(500) null, "disabled_at" timestamptz null, "failed_deliveries_in_row" int not null default 0, "last_success_at" timestamptz null, "last_failure_at" timestamptz null, "created_by" varchar(24) not null, constraint "webhook_subscription_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_subscription_workspace_id_index" on "webhook_subscription" ("workspace_id");`);

    this.addSql(
      `create table "webhook_delivery" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "subscription_id" varchar(24) not null, "event_id" varchar(24) null, "event_type" varchar(80) not null, "body" text not null, "status" varchar(10) not null, "attempts" int not null default 0, "last_status_code" int null, "last_error" varchar(1000) null, "last_duration_ms" int null, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, "delivered_at" timestamptz null, "retry_step" int not null default 0, constraint "webhook_delivery_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_delivery_workspace_id_index" on "webhook_delivery" ("workspace_id");`);
    this.addSql(
      `create index "webhook_delivery_subscription_id_created_at_index" on "webhook_delivery" ("subscription_id", "created_at");`,
    );
    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_subscription_id_event_id_unique" unique ("subscription_id", "event_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
  }
}
