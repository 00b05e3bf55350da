import { Migration } from '@mikro-orm/migrations';

/**
 * Durable start of contract envelopes: sending commits the contract `sent` with `start_queued` (and its
 * `contract_sent` event) and answers; the worker's starter (domain/intake/starter.ts) claims the row
 * (lease in `start_lease_until`, FOR UPDATE SKIP LOCKED), starts its envelope workflow and clears the flag.
 * Before, the API started the workflow after the commit and put the row back to draft when the engine was
 * down, with the `contract_sent` event already out (a retried send announced the contract twice).
 */
export class Migration20261127000100_contract_start_queue extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "contracts" add column "start_queued" boolean not null default false, add column "start_lease_until" timestamptz null;`,
    );
    this.addSql(`create index "contracts_start_queued_index" on "contracts" ("id") where "start_queued";`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "contracts_start_queued_index";`);
    this.addSql(`alter table "contracts" drop column "start_queued", drop column "start_lease_until";`);
  }
}
