import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123199100_metrics extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "metric_series" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "series_key" varchar(100) not null, "label" varchar(200) not null, "description" text null, "format" varchar(20) not null default 'decimal', "dimension_keys" text[] not null default '{}', constraint "metric_series_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('metric_series', [], { unique: ['series_key'] })) this.addSql(sql);
    // One value per series, day and dimension combination: a repeated upload of the same day replaces it.
    this.addSql(
      `create table "metric_point" ("workspace_id" varchar(24) not null, "series_key" varchar(100) not null, "day" date not null, "dimensions_key" text not null default '', "dimensions" jsonb not null default '{}', "value" double precision not null, "updated_at" timestamptz not null default now(), constraint "metric_point_pkey" primary key ("workspace_id", "series_key", "day", "dimensions_key"));`,
    );
    // Reports read created_at windows per workspace on these tables.
    this.addSql(
      `create index if not exists "lead_workspace_id_created_at_index" on "lead" ("workspace_id", "created_at");`,
    );
    this.addSql(
      `create index if not exists "company_workspace_id_created_at_index" on "company" ("workspace_id", "created_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "metric_point" cascade;`);
    this.addSql(`drop table if exists "metric_series" cascade;`);
  }
}
