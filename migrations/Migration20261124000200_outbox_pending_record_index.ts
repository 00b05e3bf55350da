import { Migration } from '@mikro-orm/migrations';

/**
 * The claim's "no earlier unprocessed event of this record" probe gets an index of its own
 * (unprocessed rows, by record then id), replacing the (workspace_id, id) one: while that one
 * existed the planner probed it (filtering the record columns) whenever the statistics still
 * said no row is unprocessed, as after a burst, and each claim cost O(backlog²).
 */
export class Migration20261124000200_outbox_pending_record_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "outbox_event_pending_record_index" on "outbox_event" ("workspace_id", "entity_type", "entity_id", "id") where "processed_at" is null;`,
    );
    this.addSql(`drop index if exists "outbox_event_undelivered_workspace_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create index "outbox_event_undelivered_workspace_index" on "outbox_event" ("workspace_id", "id") where "processed_at" is null;`,
    );
    this.addSql(`drop index if exists "outbox_event_pending_record_index";`);
  }
}
