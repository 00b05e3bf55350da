import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122110100_custom_fields extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "custom_field_definition" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "entity_type" varchar(20) not null, "key" varchar(100) not null, "label" varchar(200) not null, "type" varchar(20) not null, "description" varchar(1000) null, "options" jsonb not null default '[]', "required" boolean not null default false, "order" int not null default 0, "show_in_create_dialog" boolean not null default true, constraint "custom_field_definition_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('custom_field_definition', [], { unique: [['entity_type', 'key']] }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "custom_field_definition" cascade;`);
  }
}
