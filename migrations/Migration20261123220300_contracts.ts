import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220300_contracts extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "contracts" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" varchar(300) not null, "template_id" varchar(24) null, "company_ref" varchar(24) null, "person_ref" varchar(24) null, "deal_ref" varchar(24) null, "source_offer_id" varchar(24) null, "status" varchar(20) not null default 'draft', "mode" varchar(20) not null default 'sequential', "signature_level" varchar(20) not null default 'standard', "deadline_at" timestamptz null, "term" jsonb null, "line_items" jsonb not null default '[]', "subtotal_minor" bigint not null default 0, "vat_minor" bigint not null default 0, "total_minor" bigint not null default 0, "created_by" varchar(24) not null, "channels" jsonb null, "message" text null, "reminder_interval_ms" bigint null, "document_sha256" varchar(64) null, "workflow_id" varchar(120) null, "sent_at" timestamptz null, "completed_at" timestamptz null, "declined_at" timestamptz null, "expired_at" timestamptz null, "voided_at" timestamptz null, "void_reason" text null, "notify_signers" boolean not null default false, "last_error" text null, constraint "contracts_pkey" primary key ("id"));`,
    );
    for (const sql of tenantIndexes('contracts', ['created_at', 'status'])) this.addSql(sql);

    this.addSql(
      `create table "contract_signers" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "contract_id" varchar(24) not null, "position" int not null, "name" varchar(200) not null, "email" varchar(320) not null, "phone" varchar(40) null, "title" varchar(200) null, "role" varchar(10) not null, "status" varchar(10) not null default 'pending', "token_hash" varchar(64) null, "token_issued_at" timestamptz null, "invited_at" timestamptz null, "last_notified_at" timestamptz null, "reminders_sent" int not null default 0, "viewed_at" timestamptz null, "signed_at" timestamptz null, "declined_at" timestamptz null, "decline_reason" text null, "signature_type" varchar(10) null, "signature_name" varchar(200) null, "signature_image" text null, "ip" varchar(64) null, "user_agent" varchar(500) null, "copy_sent_at" timestamptz null, constraint "contract_signers_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "contract_signers_workspace_id_index" on "contract_signers" ("workspace_id");`);
    this.addSql(
      `alter table "contract_signers" add constraint "contract_signers_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(
      `create index "contract_signers_workspace_id_contract_id_position_index" on "contract_signers" ("workspace_id", "contract_id", "position");`,
    );

    this.addSql(
      `create table "contract_documents" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "contract_id" varchar(24) not null, "pdf" bytea not null, "pdf_sha256" varchar(64) not null, "document_sha256" varchar(64) not null, constraint "contract_documents_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "contract_documents_workspace_id_index" on "contract_documents" ("workspace_id");`);
    this.addSql(
      `alter table "contract_documents" add constraint "contract_documents_contract_id_unique" unique ("contract_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "contract_documents" cascade;`);
    this.addSql(`drop table if exists "contract_signers" cascade;`);
    this.addSql(`drop table if exists "contracts" cascade;`);
  }
}
