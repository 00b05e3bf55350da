import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 28: a signer corrected after sending (`corrected_at`) and a resend asked by the API
 * (`resend_requested_at`: at most one per signer per 10 minutes; the envelope workflow sends it).
 */
export class Migration20261127001500_contract_signer_corrections extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "contract_signers" add column "resend_requested_at" timestamptz null, add column "corrected_at" timestamptz null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "contract_signers" drop column "resend_requested_at", drop column "corrected_at";`);
  }
}
