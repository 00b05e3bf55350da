import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122110341_organize extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "dashboard_layout" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "layout" jsonb null, "visible_components" text[] not null default '{}', "chart_widgets" jsonb null, "visibility" varchar(20) not null default 'private', "user_ids" text[] not null default '{}', "group_ids" text[] not null default '{}', "owner_id" varchar(24) not null, constraint "dashboard_layout_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "dashboard_layout_workspace_id_index" on "dashboard_layout" ("workspace_id");`);

    this.addSql(
      `create table "filter_preset" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "area" varchar(100) null, "column_filters" jsonb null, "filter_tree" jsonb null, "filter_mode" varchar(3) not null default 'and', "sorting" jsonb null, "visibility" varchar(20) not null default 'private', "user_ids" text[] not null default '{}', "group_ids" text[] not null default '{}', "owner_id" varchar(24) not null, constraint "filter_preset_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('filter_preset', ['area'])) this.addSql(sql);

    this.addSql(
      `create table "list" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "entity_type" varchar(20) not null, "description" varchar(2000) null, "owner_id" varchar(24) null, constraint "list_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('list', ['entity_type'])) this.addSql(sql);

    this.addSql(
      `create table "list_item" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "list_id" varchar(24) not null, "entity_type" varchar(20) not null, "entity_id" varchar(24) not null, "added_at" timestamptz not null, "added_by" varchar(24) null, constraint "list_item_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('list_item', [['list_id', 'added_at'], 'entity_id'], {
      unique: [['list_id', 'entity_id']],
    }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "dashboard_layout" cascade;`);

    this.addSql(`drop table if exists "filter_preset" cascade;`);

    this.addSql(`drop table if exists "list" cascade;`);

    this.addSql(`drop table if exists "list_item" cascade;`);
  }
}
