import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000500_email_bulk_lease extends Migration {
  override async up(): Promise<void> {
    // The attempt of a bulk send that may claim messages now: an attempt presumed dead can hand nothing more over, so
    // the next one counts the claims it left open as possibly sent at once instead of after a stale window.
    this.addSql(`alter table "email_bulk" add column "lease" varchar(24) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "email_bulk" drop column "lease";`);
  }
}
