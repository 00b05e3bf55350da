import { Migration } from '@mikro-orm/migrations';

export class Migration20261123193100_outbox_undelivered_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "outbox_event_undelivered_workspace_index" on "outbox_event" ("workspace_id", "id") where "processed_at" is null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "outbox_event_undelivered_workspace_index";`);
  }
}
