import { Migration } from '@mikro-orm/migrations';

/**
 * Retrying a failed automation execution (domain/automations/engine/retry.ts) or sequence enrollment
 * (domain/sequences/retry.ts) makes a new row that names the one it retries; the original lists its retries
 * through the index.
 */
export class Migration20261127101100_execution_retry extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "automation_execution" add column "retry_of" varchar(24) null;`);
    this.addSql(
      `create index "automation_execution_retry_of_index" on "automation_execution" ("retry_of") where "retry_of" is not null;`,
    );
    this.addSql(`alter table "sequence_enrollment" add column "retry_of" varchar(24) null;`);
    this.addSql(
      `create index "sequence_enrollment_retry_of_index" on "sequence_enrollment" ("retry_of") where "retry_of" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "sequence_enrollment_retry_of_index";`);
    this.addSql(`alter table "sequence_enrollment" drop column "retry_of";`);
    this.addSql(`drop index if exists "automation_execution_retry_of_index";`);
    this.addSql(`alter table "automation_execution" drop column "retry_of";`);
  }
}
