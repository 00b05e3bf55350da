import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110000_outbox_lease extends Migration {
  override async up(): Promise<void> {
    // Dispatcher lease: a claim is a short transaction that stamps the row; a crashed dispatcher's
    // rows become claimable again when locked_until passes (no transaction held across deliveries).
    this.addSql(
      `alter table "outbox_event" add column "locked_until" timestamptz null, add column "locked_by" varchar(100) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "outbox_event" drop column "locked_until", drop column "locked_by";`);
  }
}
