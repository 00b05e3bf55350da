import { Migration } from '@mikro-orm/migrations';

export class Migration20261123220200_offer_types extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "offer_type" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "slug" varchar(120) not null, "description" text null, "is_default" boolean not null default false, "is_active" boolean not null default true, "default_template_id" varchar(24) null, "required_input_fields" jsonb not null, "pricing_rules" jsonb not null, "offer_settings" jsonb not null default '{}', "custom_placeholders" jsonb not null default '[]', "created_by" varchar(24) not null, constraint "offer_type_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "offer_type_workspace_id_index" on "offer_type" ("workspace_id");`);
    this.addSql(
      `create index "offer_type_workspace_id_created_at_index" on "offer_type" ("workspace_id", "created_at");`,
    );
    this.addSql(
      `alter table "offer_type" add constraint "offer_type_workspace_id_slug_unique" unique ("workspace_id", "slug");`,
    );
    // At most one default offer type per workspace, whatever races between two writes.
    this.addSql(`create unique index "offer_type_one_default" on "offer_type" ("workspace_id") where "is_default";`);

    this.addSql(
      `create table "calculator_submission" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "template_id" varchar(24) not null, "template_name" varchar(200) not null, "offer_id" varchar(24) null, "inputs" jsonb not null, "context" jsonb not null, "result" jsonb not null, "subtotal" bigint not null, "total" bigint not null, "currency" varchar(3) not null, "blocked" boolean not null default false, "created_by" varchar(24) not null, constraint "calculator_submission_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "calculator_submission_workspace_id_index" on "calculator_submission" ("workspace_id");`);
    this.addSql(
      `create index "calculator_submission_workspace_id_created_at_index" on "calculator_submission" ("workspace_id", "created_at");`,
    );
    this.addSql(
      `create index "calculator_submission_workspace_id_template_id_created_at_index" on "calculator_submission" ("workspace_id", "template_id", "created_at");`,
    );
    this.addSql(
      `create index "calculator_submission_workspace_id_offer_id_index" on "calculator_submission" ("workspace_id", "offer_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "calculator_submission" cascade;`);
    this.addSql(`drop table if exists "offer_type" cascade;`);
  }
}
