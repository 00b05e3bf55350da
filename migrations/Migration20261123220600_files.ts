import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220600_files extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "file" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "content_type" varchar(255) not null, "size" bigint not null, "sha256" varchar(64) null, "folder_id" varchar(24) null, "source" varchar(10) not null, "storage" varchar(10) null, "storage_key" varchar(300) null, "cloud" jsonb null, "uploaded_by" varchar(24) not null, constraint "file_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('file', ['created_at', 'folder_id'])) this.addSql(sql);

    this.addSql(
      `create table "file_link" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "file_id" varchar(24) not null, "entity_type" varchar(30) not null, "entity_id" varchar(24) not null, "linked_by" varchar(24) not null, constraint "file_link_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('file_link', [['entity_type', 'entity_id']], {
      unique: [['file_id', 'entity_type', 'entity_id']],
    }))
      this.addSql(sql);

    this.addSql(
      `create table "folder" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "parent_id" varchar(24) null, "created_by" varchar(24) not null, constraint "folder_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('folder', ['parent_id'])) this.addSql(sql);
    // Sibling folders have distinct names (case-insensitive), top level included.
    this.addSql(
      `create unique index "folder_sibling_name_unique" on "folder" ("workspace_id", coalesce("parent_id", ''), lower("name"));`,
    );

    this.addSql(
      `create table "integration_sync" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "provider" varchar(40) not null, "status" varchar(10) not null, "last_sync_at" timestamptz not null, "last_full_sync_at" timestamptz null, "last_success_at" timestamptz null, "last_error" varchar(500) null, "items_checked" int not null default 0, "items_missing" int not null default 0, constraint "integration_sync_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('integration_sync', [], { unique: ['provider'] })) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "integration_sync" cascade;`);
    this.addSql(`drop table if exists "folder" cascade;`);
    this.addSql(`drop table if exists "file_link" cascade;`);
    this.addSql(`drop table if exists "file" cascade;`);
  }
}
