import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110100_custom_fields extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "custom_field_definition" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "entity_type" varchar(20) not null, "key" varchar(100) not null, "label" varchar(200) not null, "type" varchar(20) not null, "description" varchar(1000) null, "options" jsonb not null default '[]', "required" boolean not null default false, "order" int not null default 0, "show_in_create_dialog" boolean not null default true, constraint "custom_field_definition_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "custom_field_definition_workspace_id_index" on "custom_field_definition" ("workspace_id");`,
    );
    this.addSql(
      `alter table "custom_field_definition" add constraint "custom_field_definition_workspace_id_entity_type_key_unique" unique ("workspace_id", "entity_type", "key");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "custom_field_definition" cascade;`);
  }
}
