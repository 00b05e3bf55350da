import { Migration } from '@mikro-orm/migrations';

/**
 * Retrying a failed automation execution (domain/automations/engine/retry.ts) makes a new execution that names
 * the one it retries; the original lists its retries through the index.
 */
export class Migration20261127101100_execution_retry extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "automation_execution" add column "retry_of" varchar(24) null;`);
    this.addSql(
      `create index "automation_execution_retry_of_index" on "automation_execution" ("retry_of") where "retry_of" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "automation_execution_retry_of_index";`);
    this.addSql(`alter table "automation_execution" drop column "retry_of";`);
  }
}
