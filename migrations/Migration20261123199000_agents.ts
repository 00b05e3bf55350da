import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123199000_agents extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "agent" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" text null, "goal" text null, "system_prompt" text null, "icon" varchar(100) null, "model_tier" varchar(20) not null default 'balanced', "enabled" boolean not null default true, "permissions" jsonb not null, "created_by" varchar(24) not null, constraint "agent_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('agent', ['created_at'])) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "agent" cascade;`);
  }
}
