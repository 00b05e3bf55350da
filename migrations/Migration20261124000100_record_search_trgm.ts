import { Migration } from '@mikro-orm/migrations';

// Custom object record search (`GET /custom-objects/:slug/records?q=`): a trigram index on the
// record's JSON text answers the necessary condition `data::text ilike '%q%'` that listRecords adds
// (records.service.ts searchPrefilter), so a search reads only candidate records instead of
// evaluating every field condition on every record of the workspace. pg_trgm ships with Postgres
// (the embedded one included) and is a trusted extension: a database owner may create it.
export class Migration20261124000100_record_search_trgm extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(
      `create index "custom_object_record_data_trgm_index" on "custom_object_record" using gin ((data::text) gin_trgm_ops);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "custom_object_record_data_trgm_index";`);
  }
}
