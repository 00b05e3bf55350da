import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122105903_deals extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "flow" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(200) not null, "description" text null, "is_default" boolean not null default false, constraint "flow_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "flow_workspace_id_index" on "flow" ("workspace_id");`);
    this.addSql(`create unique index "flow_one_default_per_workspace" on "flow" ("workspace_id") where "is_default";`);

    this.addSql(
      `create table "flow_stage" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "flow_id" varchar(24) not null, "title" varchar(200) not null, "order" double precision not null, "type" varchar(10) not null default 'open', "probability" double precision null, constraint "flow_stage_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('flow_stage', [['flow_id', 'order']])) this.addSql(sql);

    for (const sql of tenantIndexes('deal', ['created_at', ['flow_id', 'stage_id'], 'stage_id', 'owner_id'], {
      workspaceIndex: false,
    }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "flow" cascade;`);

    this.addSql(`drop table if exists "flow_stage" cascade;`);

    this.addSql(`drop index "deal_workspace_id_created_at_index";`);
    this.addSql(`drop index "deal_workspace_id_flow_id_stage_id_index";`);
    this.addSql(`drop index "deal_workspace_id_stage_id_index";`);
    this.addSql(`drop index "deal_workspace_id_owner_id_index";`);
  }
}
