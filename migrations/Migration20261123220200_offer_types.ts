import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220200_offer_types extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "offer_type" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "slug" varchar(120) not null, "description" text null, "is_default" boolean not null default false, "is_active" boolean not null default true, "default_template_id" varchar(24) null, "required_input_fields" jsonb not null, "pricing_rules" jsonb not null, "offer_settings" jsonb not null default '{}', "custom_placeholders" jsonb not null default '[]', "created_by" varchar(24) not null, constraint "offer_type_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('offer_type', ['created_at'], { unique: ['slug'] })) this.addSql(sql);
    // At most one default offer type per workspace, whatever races between two writes.
    this.addSql(`create unique index "offer_type_one_default" on "offer_type" ("workspace_id") where "is_default";`);

    this.addSql(
      `create table "calculator_submission" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "template_id" varchar(24) not null, "template_name" varchar(200) not null, "offer_id" varchar(24) null, "inputs" jsonb not null, "context" jsonb not null, "result" jsonb not null, "subtotal" bigint not null, "total" bigint not null, "currency" varchar(3) not null, "blocked" boolean not null default false, "created_by" varchar(24) not null, constraint "calculator_submission_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('calculator_submission', ['created_at', ['template_id', 'created_at'], 'offer_id']))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "calculator_submission" cascade;`);
    this.addSql(`drop table if exists "offer_type" cascade;`);
  }
}
