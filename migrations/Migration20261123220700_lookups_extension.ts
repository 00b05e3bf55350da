import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

// Same text as WEBSITE_DOMAIN_SQL in platform/shared/normalize.ts: the planner only uses an expression index for an
// identical expression.
const websiteDomain = `regexp_replace(regexp_replace(regexp_replace(lower("website"), '^[a-z][a-z0-9+.-]*://', ''), '[^a-z0-9.:-].*$', ''), '^www[0-9]{0,1}\\.|:[0-9]*$|\\.$', '', 'g')`;

export class Migration20261123220700_lookups_extension extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "company" add column "profile_url" varchar(2048) null;`);
    this.addSql(`alter table "person" add column "profile_url" varchar(2048) null;`);
    this.addSql(`create index "company_workspace_id_profile_url_index" on "company" ("workspace_id", "profile_url");`);
    this.addSql(`create index "person_workspace_id_profile_url_index" on "person" ("workspace_id", "profile_url");`);
    this.addSql(
      `create index "company_workspace_id_website_domain_index" on "company" ("workspace_id", (${websiteDomain}));`,
    );

    this.addSql(
      `create table "extension_contribution" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "enabled" boolean not null default false, "changed_by" varchar(24) null, constraint "extension_contribution_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "extension_contribution_workspace_id_index" on "extension_contribution" ("workspace_id");`,
    );
    this.addSql(
      `alter table "extension_contribution" add constraint "extension_contribution_workspace_id_unique" unique ("workspace_id");`,
    );

    this.addSql(
      `create table "extension_observation" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "kind" varchar(20) not null, "profile_url" varchar(2048) not null, "handle" varchar(200) not null, "facts" jsonb not null, "observed_at" timestamptz not null, constraint "extension_observation_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "extension_observation_workspace_id_index" on "extension_observation" ("workspace_id");`);
    this.addSql(`create index "extension_observation_profile_url_index" on "extension_observation" ("profile_url");`);
    this.addSql(`create index "extension_observation_handle_index" on "extension_observation" ("handle");`);
    for (const sql of tenantIndexes('extension_observation', ['created_at'], {
      unique: ['profile_url'],
      workspaceIndex: false,
    }))
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "extension_observation" cascade;`);
    this.addSql(`drop table if exists "extension_contribution" cascade;`);
    this.addSql(`drop index if exists "company_workspace_id_website_domain_index";`);
    this.addSql(`alter table "person" drop column "profile_url";`);
    this.addSql(`alter table "company" drop column "profile_url";`);
  }
}
