import { Migration } from '@mikro-orm/migrations';

/**
 * Durable intake of sequence enrollments: the enroll call commits the rows with `start_queued` and
 * answers; the worker's starter (domain/intake/starter.ts) claims them (lease in `start_lease_until`,
 * FOR UPDATE SKIP LOCKED), starts their workflows and clears the flag. `request_key` ties the rows to
 * the API request that made them (its Idempotency-Key), so a retry of that request never enrolls twice.
 */
export class Migration20261126000100_enrollment_intake extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "sequence_enrollment" add column "start_queued" boolean not null default false, add column "start_lease_until" timestamptz null, add column "request_key" varchar(64) null;`,
    );
    this.addSql(
      `create index "sequence_enrollment_start_queued_index" on "sequence_enrollment" ("id") where "start_queued";`,
    );
    this.addSql(
      `create unique index "sequence_enrollment_request_key_unique" on "sequence_enrollment" ("workspace_id", "request_key", "entity_id") where "request_key" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "sequence_enrollment_request_key_unique";`);
    this.addSql(`drop index if exists "sequence_enrollment_start_queued_index";`);
    this.addSql(
      `alter table "sequence_enrollment" drop column "start_queued", drop column "start_lease_until", drop column "request_key";`,
    );
  }
}
