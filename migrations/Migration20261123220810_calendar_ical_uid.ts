import { Migration } from '@mikro-orm/migrations';

export class Migration20261123220810_calendar_ical_uid extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "calendar_event" add column "ical_uid" varchar(1000) null;`);
    this.addSql(
      `create index "calendar_event_workspace_id_ical_uid_index" on "calendar_event" ("workspace_id", "ical_uid");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "calendar_event_workspace_id_ical_uid_index";`);
    this.addSql(`alter table "calendar_event" drop column if exists "ical_uid";`);
  }
}
