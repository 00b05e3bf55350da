import { Migration } from '@mikro-orm/migrations';

/**
 * Each signer's invitation delivery: `queued` when due, `sent`, `retrying` (with the last error and
 * the next attempt) while the mail or SMS gateway refuses, `failed` once the retries are used up.
 * Before, a contract whose invitations could not be delivered showed only `sent`.
 */
export class Migration20261127000300_contract_invitation_status extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "contract_signers" add column "invitation_status" varchar(10) null, add column "invitation_error" text null, add column "invitation_attempts" int not null default 0, add column "invitation_next_attempt_at" timestamptz null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "contract_signers" drop column "invitation_status", drop column "invitation_error", drop column "invitation_attempts", drop column "invitation_next_attempt_at";`,
    );
  }
}
