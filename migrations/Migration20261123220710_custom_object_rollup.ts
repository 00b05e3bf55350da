import { Migration } from '@mikro-orm/migrations';

export class Migration20261123220710_custom_object_rollup extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "custom_object_field" add column "rollup" jsonb null;`);
    // Rollup recomputation finds the referencing records by (object, reference value).
    this.addSql(
      `create index "custom_object_field_workspace_id_type_index" on "custom_object_field" ("workspace_id", "type");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "custom_object_field_workspace_id_type_index";`);
    this.addSql(`alter table "custom_object_field" drop column "rollup";`);
  }
}
