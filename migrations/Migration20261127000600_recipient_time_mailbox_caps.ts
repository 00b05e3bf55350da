import { Migration } from '@mikro-orm/migrations';

/**
 * Sequences that respect people's time (issue 28, part 2):
 * - `time_zone` (IANA name) on people and leads: sequence sends follow the contact's local time;
 * - `max_per_hour` / `max_per_day` on connected mailboxes, counted in `email_send_quota` (one row
 *   per mailbox and hour or day, taken with a conditional upsert in the send's claim transaction);
 * - `wait_reason` on enrollments: why the run is waiting (send_window, mailbox_cap, email_interval,
 *   paused), next to `next_action_at`.
 */
export class Migration20261127000600_recipient_time_mailbox_caps extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "person" add column "time_zone" varchar(64) null;`);
    this.addSql(`alter table "lead" add column "time_zone" varchar(64) null;`);
    this.addSql(`alter table "email_account" add column "max_per_hour" int null, add column "max_per_day" int null;`);
    this.addSql(`alter table "sequence_enrollment" add column "wait_reason" varchar(20) null;`);
    this.addSql(
      `create table "email_send_quota" ("workspace_id" varchar(24) not null, "account_id" varchar(24) not null, "period" varchar(4) not null, "window_start" timestamptz not null, "count" int not null, constraint "email_send_quota_pkey" primary key ("workspace_id", "account_id", "period", "window_start"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "email_send_quota" cascade;`);
    this.addSql(`alter table "sequence_enrollment" drop column "wait_reason";`);
    this.addSql(`alter table "email_account" drop column "max_per_hour", drop column "max_per_day";`);
    this.addSql(`alter table "lead" drop column "time_zone";`);
    this.addSql(`alter table "person" drop column "time_zone";`);
  }
}
