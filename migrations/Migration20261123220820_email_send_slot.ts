import { Migration } from '@mikro-orm/migrations';

export class Migration20261123220820_email_send_slot extends Migration {
  override async up(): Promise<void> {
    // The next free send time per mailbox (sequence sendSettings.emailIntervalSeconds); written with one upsert per
    // send.
    this.addSql(
      `create table "email_send_slot" ("workspace_id" varchar(24) not null, "mailbox" varchar(40) not null, "next_at" timestamptz not null, constraint "email_send_slot_pkey" primary key ("workspace_id", "mailbox"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "email_send_slot" cascade;`);
  }
}
