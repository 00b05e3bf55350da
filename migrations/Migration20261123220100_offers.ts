import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220100_offers extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "offers" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "kind" varchar(20) not null default 'offer', "title" varchar(300) not null, "status" varchar(20) not null default 'draft', "offer_type_id" varchar(24) null, "template_id" varchar(24) null, "company_ref" varchar(24) null, "person_ref" varchar(24) null, "deal_ref" varchar(24) null, "quote_input" jsonb null, "calculator_result" jsonb null, "line_items" jsonb not null default '[]', "currency" varchar(3) not null, "subtotal_minor" bigint not null default 0, "vat_minor" bigint not null default 0, "total_minor" bigint not null default 0, "valid_until" varchar(10) null, "offer_number" varchar(60) null, "public_id" varchar(40) null, "snapshot" jsonb null, "owner_id" varchar(24) not null, "sent_at" timestamptz null, "cancelled_at" timestamptz null, "responded_at" timestamptz null, "response" jsonb null, "view_count" int not null default 0, "first_viewed_at" timestamptz null, constraint "offers_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "offers_workspace_id_index" on "offers" ("workspace_id");`);
    this.addSql(`alter table "offers" add constraint "offers_public_id_unique" unique ("public_id");`);
    for (const sql of tenantIndexes('offers', ['created_at', 'status', 'company_ref', 'deal_ref'], {
      workspaceIndex: false,
    }))
      this.addSql(sql);

    this.addSql(
      `create table "offer_settings" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "settings" jsonb not null, constraint "offer_settings_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "offer_settings" add constraint "offer_settings_workspace_id_unique" unique ("workspace_id");`,
    );

    this.addSql(
      `create table "offer_template" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" text null, "pages" jsonb not null default '[]', "header_elements" jsonb not null default '[]', "footer_elements" jsonb not null default '[]', "branding" jsonb not null default '{}', "default_terms" text null, "default_payment_terms" text null, "default_validity" int null, "is_default" boolean not null default false, "is_active" boolean not null default true, constraint "offer_template_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('offer_template', ['created_at'])) this.addSql(sql);

    this.addSql(
      `create table "offer_product" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(300) not null, "description" text null, "sku" varchar(100) null, "unit_price" double precision not null default 0, "unit" varchar(50) null, "vat_rate" double precision null, "pricing_type" varchar(10) not null default 'fixed', "tiered_pricing" jsonb not null default '[]', "conditional_rules" jsonb not null default '[]', "variants" jsonb not null default '[]', "category" varchar(200) null, "is_active" boolean not null default true, constraint "offer_product_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('offer_product', ['created_at', 'category'])) this.addSql(sql);

    this.addSql(
      `create table "catalog_item" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(300) not null, "description" text null, "category" varchar(200) null, "product_id" varchar(24) null, "sku" varchar(100) null, "unit_price" double precision not null default 0, "unit" varchar(50) null, "vat_rate" double precision null, "image_url" varchar(2000) null, "sort_order" int not null default 0, "is_active" boolean not null default true, constraint "catalog_item_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('catalog_item', ['sort_order', 'category'])) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "catalog_item" cascade;`);
    this.addSql(`drop table if exists "offer_product" cascade;`);
    this.addSql(`drop table if exists "offer_template" cascade;`);
    this.addSql(`drop table if exists "offer_settings" cascade;`);
    this.addSql(`drop table if exists "offers" cascade;`);
  }
}
