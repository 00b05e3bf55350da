import { Migration } from '@mikro-orm/migrations';

export class Migration20261122120206_engine extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "automation_lookup_snapshot" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "automation_id" varchar(24) not null, "node_id" varchar(100) not null, "record_id" varchar(64) not null, "values" jsonb not null, constraint "automation_lookup_snapshot_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "automation_lookup_snapshot_workspace_id_index" on "automation_lookup_snapshot" ("workspace_id");`,
    );
    this.addSql(
      `alter table "automation_lookup_snapshot" add constraint "automation_lookup_snapshot_automation_id_node_id__880d9_unique" unique ("automation_id", "node_id", "record_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "automation_lookup_snapshot" cascade;`);
  }
}
