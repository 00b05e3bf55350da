import { Migration } from '@mikro-orm/migrations';

/**
 * The API command (approve, reject, pause, resume, unenroll) that last changed a booking or an
 * enrollment: a command recorded while no worker ran answers its retry (same Idempotency-Key) with
 * the outcome once the worker has applied it.
 */
export class Migration20261125000100_engine_command_ids extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "booking" add column "decision_id" varchar(64) null;`);
    this.addSql(`alter table "sequence_enrollment" add column "last_command_id" varchar(64) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "booking" drop column if exists "decision_id";`);
    this.addSql(`alter table "sequence_enrollment" drop column if exists "last_command_id";`);
  }
}
