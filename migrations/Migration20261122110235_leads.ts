import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122110235_leads extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "lead" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(500) not null, "email" varchar(320) null, "phone" varchar(50) null, "status" varchar(50) not null default 'new', "source" varchar(100) null, "notes" text null, "score" int not null default 0, "score_breakdown" jsonb not null default '[]', "value" double precision null, "company_ref" varchar(24) null, "person_ref" varchar(24) null, "custom_fields" jsonb not null default '{}', "tags" text[] not null default '{}', "owner_id" varchar(24) null, constraint "lead_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('lead', ['updated_at', 'status', 'person_ref', 'company_ref'])) this.addSql(sql);

    this.addSql(
      `create table "lead_routing_rule" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" varchar(1000) null, "conditions" jsonb not null default '[]', "assignment" jsonb not null, "is_active" boolean not null default true, "sort_order" int not null default 0, "rr_cursor" int not null default 0, constraint "lead_routing_rule_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('lead_routing_rule', ['sort_order'], { unique: ['name'] })) this.addSql(sql);

    this.addSql(
      `create table "lead_scoring_rule" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" varchar(1000) null, "field" varchar(120) not null, "condition" varchar(20) not null, "value" jsonb null, "points" int not null, "is_active" boolean not null default true, "sort_order" int not null default 0, constraint "lead_scoring_rule_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('lead_scoring_rule', ['sort_order'], { unique: ['name'] })) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "lead" cascade;`);

    this.addSql(`drop table if exists "lead_routing_rule" cascade;`);

    this.addSql(`drop table if exists "lead_scoring_rule" cascade;`);
  }
}
