import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123199200_custom_objects extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "custom_object" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "slug" varchar(63) not null, "singular" varchar(100) not null, "plural" varchar(100) not null, "description" text null, "icon" varchar(100) null, "color" varchar(7) null, "use_accent_nav_icon" boolean not null default false, "searchable" boolean not null default true, "show_in_sidebar" boolean not null default true, "title_field" varchar(63) null, "favorite_field_keys" text[] not null default '{}', "searchable_fields" text[] not null default '{}', "views" jsonb null, "pii_fields" text[] not null default '{}', "last_record_number" int not null default 0, "created_by" varchar(24) not null, constraint "custom_object_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('custom_object', [], { unique: ['slug'] })) this.addSql(sql);
    this.addSql(
      `create table "custom_object_field" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "object_id" varchar(24) not null, "slug" varchar(63) not null, "label" varchar(200) not null, "type" varchar(20) not null, "is_required" boolean not null default false, "is_unique" boolean not null default false, "options" jsonb not null default '[]', "reference_type" varchar(10) null, "reference_object" varchar(63) null, "native_entity" varchar(20) null, "order" int not null default 0, constraint "custom_object_field_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "custom_object_field_workspace_id_index" on "custom_object_field" ("workspace_id");`);
    this.addSql(`create index "custom_object_field_object_id_index" on "custom_object_field" ("object_id");`);
    this.addSql(
      `alter table "custom_object_field" add constraint "custom_object_field_object_id_slug_unique" unique ("object_id", "slug");`,
    );
    this.addSql(
      `create table "custom_object_record" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "object_id" varchar(24) not null, "record_number" int not null, "data" jsonb not null default '{}', "avatar" varchar(2048) null, "created_by" varchar(24) not null, "updated_by" varchar(24) not null, constraint "custom_object_record_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('custom_object_record', [['object_id', 'created_at']])) this.addSql(sql);
    this.addSql(
      `alter table "custom_object_record" add constraint "custom_object_record_object_id_record_number_unique" unique ("object_id", "record_number");`,
    );
    // isUnique fields: one row per (object, field, value); the primary key makes a second holder fail.
    this.addSql(
      `create table "custom_object_unique_value" ("workspace_id" varchar(24) not null, "object_id" varchar(24) not null, "field_slug" varchar(63) not null, "value_key" text not null, "record_id" varchar(24) not null, constraint "custom_object_unique_value_pkey" primary key ("object_id", "field_slug", "value_key"));`,
    );
    this.addSql(
      `create index "custom_object_unique_value_record_index" on "custom_object_unique_value" ("workspace_id", "record_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "custom_object_unique_value" cascade;`);
    this.addSql(`drop table if exists "custom_object_record" cascade;`);
    this.addSql(`drop table if exists "custom_object_field" cascade;`);
    this.addSql(`drop table if exists "custom_object" cascade;`);
  }
}
