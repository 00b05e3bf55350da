import { Migration } from '@mikro-orm/migrations';

/**
 * Booking approval reminders become offsets before the deadline (`approvalReminderHours: [24, 2]`)
 * instead of one interval. A stored interval N with deadline D becomes the offsets it meant
 * (D − N, D − 2N, … above 0; the 5 nearest the deadline). `approval_notices` records the approver
 * notices a booking queued, so each goes out once (the workflow's activity is retried).
 */
export class Migration20261127100100_booking_approval_reminders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "booking_config" add column "approval_reminder_offsets" jsonb null;`);
    this.addSql(
      `update "booking_config" c set "approval_reminder_offsets" = (select jsonb_agg(o order by o desc) from (select c."approval_deadline_hours" - k * c."approval_reminder_hours" as o from generate_series(1, 720) k where c."approval_deadline_hours" - k * c."approval_reminder_hours" > 0 order by 1 asc limit 5) s) where c."approval_reminder_hours" is not null;`,
    );
    this.addSql(`alter table "booking_config" drop column "approval_reminder_hours";`);
    this.addSql(`alter table "booking_config" rename column "approval_reminder_offsets" to "approval_reminder_hours";`);
    this.addSql(`alter table "booking" add column "approval_notices" jsonb not null default '[]';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "booking" drop column "approval_notices";`);
    this.addSql(`alter table "booking_config" add column "approval_reminder_interval" int null;`);
    this.addSql(
      `update "booking_config" set "approval_reminder_interval" = greatest(1, ("approval_reminder_hours"->>0)::int) where jsonb_array_length("approval_reminder_hours") > 0;`,
    );
    this.addSql(`alter table "booking_config" drop column "approval_reminder_hours";`);
    this.addSql(
      `alter table "booking_config" rename column "approval_reminder_interval" to "approval_reminder_hours";`,
    );
  }
}
