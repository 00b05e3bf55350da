import { Migration } from '@mikro-orm/migrations';

/**
 * Per-subscriber deliveries that did not go through with their outbox event: a failed one (parked,
 * retried on its own schedule) and the later events of the same record for the same subscriber,
 * queued behind it. The event row is processed for every other subscriber at once, so a failing
 * subscriber holds back only itself. Rows are deleted when delivered; `failed` and `dropped` stay
 * for operators (GET /admin/outbox/deliveries, `crm outbox`). The event is copied in: processed
 * outbox rows are pruned after a week.
 */
export class Migration20261125000100_outbox_delivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "outbox_delivery" (
      "id" varchar(24) not null primary key,
      "workspace_id" varchar(24) not null,
      "subscriber" varchar(80) not null,
      "outbox_id" bigint not null,
      "event_id" varchar(24) not null,
      "type" varchar(80) not null,
      "entity_type" varchar(40) not null,
      "entity_id" varchar(64) not null,
      "actor_user_id" varchar(24) null,
      "payload" jsonb not null,
      "occurred_at" timestamptz not null,
      "status" varchar(16) not null default 'pending',
      "attempts" int not null default 0,
      "next_attempt_at" timestamptz not null default now(),
      "last_error" text null,
      "last_attempt_at" timestamptz null,
      "locked_by" varchar(100) null,
      "locked_until" timestamptz null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      constraint "outbox_delivery_status_check" check ("status" in ('pending', 'failed', 'dropped')),
      constraint "outbox_delivery_event_subscriber_unique" unique ("event_id", "subscriber")
    );`);
    // The claim's order probe and the "is this record queued for this subscriber" probe of the outbox claim.
    this.addSql(
      `create index "outbox_delivery_pending_record_index" on "outbox_delivery" ("workspace_id", "entity_type", "entity_id", "subscriber", "outbox_id") where "status" = 'pending';`,
    );
    this.addSql(
      `create index "outbox_delivery_due_index" on "outbox_delivery" ("next_attempt_at") where "status" = 'pending';`,
    );
    this.addSql(
      `create index "outbox_delivery_workspace_index" on "outbox_delivery" ("workspace_id", "status", "subscriber", "id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "outbox_delivery";`);
  }
}
