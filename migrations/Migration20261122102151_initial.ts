import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261122102151_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "activity" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "type" varchar(60) not null, "system" boolean not null default false, "summary" varchar(1000) null, "description" text null, "company_id" varchar(24) null, "person_id" varchar(24) null, "deal_id" varchar(24) null, "lead_id" varchar(24) null, "entity_type" varchar(40) null, "entity_id" varchar(64) null, "note_ref" varchar(24) null, "date" timestamptz not null, "metadata" jsonb not null default '{}', "user_id" varchar(24) null, constraint "activity_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('activity', [
      ['company_id', 'date'],
      ['person_id', 'date'],
      ['deal_id', 'date'],
      ['lead_id', 'date'],
      ['entity_type', 'entity_id', 'date'],
    ]))
      this.addSql(sql);

    this.addSql(
      `create table "api_key" ("id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "workspace_id" varchar(24) not null, "user_id" varchar(24) not null, "name" varchar(200) null, "prefix" varchar(20) not null, "hash" varchar(64) not null, "scopes" text[] not null, "role" varchar(20) not null, "revoked_at" timestamptz null, "last_used_at" timestamptz null, constraint "api_key_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "api_key_workspace_id_index" on "api_key" ("workspace_id");`);
    this.addSql(`alter table "api_key" add constraint "api_key_hash_unique" unique ("hash");`);

    this.addSql(
      `create table "company" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(300) not null, "cvr" varchar(50) null, "email" varchar(320) null, "phone" varchar(50) null, "address" varchar(500) null, "city" varchar(200) null, "zip" varchar(20) null, "country" varchar(100) null, "website" varchar(2048) null, "industry" varchar(200) null, "employees" int null, "custom_fields" jsonb not null default '[]', "tags" text[] not null default '{}', "avatar" varchar(2048) null, "logo_url" varchar(2048) null, "owner_id" varchar(24) null, constraint "company_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('company', ['updated_at', 'cvr'])) this.addSql(sql);

    this.addSql(
      `create table "company_person" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" varchar(24) not null, "person_id" varchar(24) not null, constraint "company_person_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('company_person', ['person_id'], { unique: [['company_id', 'person_id']] }))
      this.addSql(sql);

    this.addSql(
      `create table "deal" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(500) not null, "value" double precision null, "flow_id" varchar(24) null, "stage_id" varchar(64) null, "priority" varchar(10) null, "probability" double precision null, "company" varchar(24) null, "person_ref" varchar(24) null, "lead_ref" varchar(24) null, "custom_fields" jsonb not null default '{}', "tags" text[] not null default '{}', "status" varchar(10) not null default 'open', "won_date" timestamptz null, "lost_date" timestamptz null, "owner_id" varchar(24) null, constraint "deal_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('deal', ['company', 'person_ref', 'updated_at'])) this.addSql(sql);

    this.addSql(
      `create table "image" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "token" varchar(64) not null, "content_type" varchar(100) not null, "size" int not null, "sha256" varchar(64) not null, "data" bytea not null, "source_url" varchar(2048) null, constraint "image_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "image_workspace_id_index" on "image" ("workspace_id");`);
    this.addSql(`alter table "image" add constraint "image_token_unique" unique ("token");`);

    this.addSql(
      `create table "outbox_event" ("id" bigserial primary key, "event_id" varchar(24) not null, "workspace_id" varchar(24) not null, "type" varchar(80) not null, "entity_type" varchar(40) not null, "entity_id" varchar(64) not null, "actor_user_id" varchar(24) null, "payload" jsonb not null, "occurred_at" timestamptz not null, "available_at" timestamptz not null, "attempts" int not null default 0, "delivered_to" text[] not null default '{}', "processed_at" timestamptz null, "last_error" text null);`,
    );
    this.addSql(`alter table "outbox_event" add constraint "outbox_event_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "outbox_event_processed_at_id_index" on "outbox_event" ("processed_at", "id");`);
    this.addSql(
      `create index "outbox_event_workspace_id_entity_type_entity_id_id_index" on "outbox_event" ("workspace_id", "entity_type", "entity_id", "id");`,
    );

    this.addSql(
      `create table "person" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "first_name" varchar(200) not null, "last_name" varchar(200) null, "title" varchar(200) null, "emails" jsonb not null default '[]', "phones" jsonb not null default '[]', "company_id" varchar(24) null, "custom_fields" jsonb not null default '[]', "tags" text[] not null default '{}', "avatar" varchar(2048) null, "owner_id" varchar(24) null, constraint "person_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('person', ['updated_at', 'company_id'])) this.addSql(sql);

    this.addSql(
      `create table "app_user" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "email" varchar(320) not null, "first_name" varchar(200) not null, "last_name" varchar(200) null, "phone" varchar(50) null, "default_user_phone" varchar(50) null, "role" varchar(20) not null, constraint "app_user_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('app_user', [], { unique: ['email'] })) this.addSql(sql);

    this.addSql(
      `create table "workspace" ("id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "status" varchar(20) not null default 'active', "plan" varchar(20) not null default 'trial', "timezone" varchar(64) not null default 'Europe/Copenhagen', constraint "workspace_pkey" primary key ("id"));`,
    );

    // Outbox wake-up: NOTIFY is delivered at commit, so the dispatcher never sees uncommitted rows.
    this.addSql(
      `create or replace function crm_outbox_notify() returns trigger language plpgsql as $$ begin perform pg_notify('crm_outbox', ''); return null; end $$;`,
    );
    this.addSql(
      `create trigger outbox_event_notify after insert on "outbox_event" for each statement execute function crm_outbox_notify();`,
    );
    // Rate-limit windows shared by every API process (one row per key, window kind and window start).
    this.addSql(
      `create table "rate_limit_window" ("key_id" varchar(24) not null, "kind" char(1) not null, "window_start" timestamptz not null, "count" int not null, constraint "rate_limit_window_pkey" primary key ("key_id", "kind", "window_start"));`,
    );
    this.addSql(`create index "rate_limit_window_start_index" on "rate_limit_window" ("window_start");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rate_limit_window" cascade;`);
    this.addSql(`drop function if exists crm_outbox_notify() cascade;`);
    this.addSql(`drop table if exists "activity" cascade;`);

    this.addSql(`drop table if exists "api_key" cascade;`);

    this.addSql(`drop table if exists "company" cascade;`);

    this.addSql(`drop table if exists "company_person" cascade;`);

    this.addSql(`drop table if exists "deal" cascade;`);

    this.addSql(`drop table if exists "image" cascade;`);

    this.addSql(`drop table if exists "outbox_event" cascade;`);

    this.addSql(`drop table if exists "person" cascade;`);

    this.addSql(`drop table if exists "app_user" cascade;`);

    this.addSql(`drop table if exists "workspace" cascade;`);
  }
}
