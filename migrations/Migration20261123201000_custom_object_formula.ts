import { Migration } from '@mikro-orm/migrations';

export class Migration20261123201000_custom_object_formula extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "custom_object_field" add column "expression" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "custom_object_field" drop column "expression";`);
  }
}
