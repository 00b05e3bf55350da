import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122110900_exchange extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "import_run" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "entity_type" varchar(20) not null, "dedupe" varchar(10) not null, "total" int not null, "created" int not null default 0, "updated" int not null default 0, "skipped" int not null default 0, "failed" int not null default 0, "errors" jsonb not null default '[]', "user_id" varchar(24) null, "started_at" timestamptz not null, "finished_at" timestamptz null, constraint "import_run_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('import_run', ['started_at'])) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "import_run" cascade;`);
  }
}
