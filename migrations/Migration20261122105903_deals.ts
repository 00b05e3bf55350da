import { Migration } from '@mikro-orm/migrations';

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
    this.addSql(`create index "flow_stage_workspace_id_index" on "flow_stage" ("workspace_id");`);
    this.addSql(
      `create index "flow_stage_workspace_id_flow_id_order_index" on "flow_stage" ("workspace_id", "flow_id", "order");`,
    );

    this.addSql(`create index "deal_workspace_id_created_at_index" on "deal" ("workspace_id", "created_at");`);
    this.addSql(
      `create index "deal_workspace_id_flow_id_stage_id_index" on "deal" ("workspace_id", "flow_id", "stage_id");`,
    );
    this.addSql(`create index "deal_workspace_id_stage_id_index" on "deal" ("workspace_id", "stage_id");`);
    this.addSql(`create index "deal_workspace_id_owner_id_index" on "deal" ("workspace_id", "owner_id");`);
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
