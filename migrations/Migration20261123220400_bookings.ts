import { Migration } from '@mikro-orm/migrations';
import { tenantIndexes } from '../platform/orm/migration-sql';

export class Migration20261123220400_bookings extends Migration {
  override async up(): Promise<void> {
    // btree_gist lets one exclusion constraint combine equality (workspace, agent) with range overlap.
    this.addSql(`create extension if not exists btree_gist;`);
    this.addSql(
      `create table "booking_config" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" text null, "time_zone" varchar(64) not null, "location" varchar(500) null, "agents" jsonb not null default '[]', "meeting_types" jsonb not null default '[]', "buffer_before_minutes" int not null default 0, "buffer_after_minutes" int not null default 0, "minimum_notice_minutes" int not null default 0, "max_per_day" int null, "slot_interval_minutes" int not null default 30, "requires_approval" boolean not null default false, "approval_deadline_hours" int not null default 24, "approval_reminder_hours" int null, "on_approval_timeout" varchar(10) not null default 'reject', "approvers" jsonb not null default '[]', "create_person" boolean not null default true, "create_lead" boolean not null default false, "lead_source" varchar(100) null, "public_booking_enabled" boolean not null default true, "is_default" boolean not null default false, constraint "booking_config_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "booking_config_workspace_id_index" on "booking_config" ("workspace_id");`);
    // One lazily created default per workspace, even when two first lists race.
    this.addSql(
      `create unique index "booking_config_one_default" on "booking_config" ("workspace_id") where "is_default";`,
    );

    this.addSql(
      `create table "booking" ("id" varchar(24) not null, "workspace_id" varchar(24) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "public_id" varchar(48) not null, "config_id" varchar(24) not null, "meeting_type_id" varchar(100) null, "meeting_type_name" varchar(200) null, "agent_id" varchar(24) not null, "status" varchar(20) not null, "start_date_time" timestamptz not null, "end_date_time" timestamptz not null, "hold_start" timestamptz not null, "hold_end" timestamptz not null, "time_zone" varchar(64) not null, "attendee_info" jsonb not null, "custom_fields_data" jsonb not null default '{}', "invited_participants" jsonb not null default '[]', "person_id" varchar(24) null, "lead_id" varchar(24) null, "calendar_event_id" varchar(24) null, "source" varchar(10) not null default 'api', "approval_deadline_at" timestamptz null, "approval_workflow_id" varchar(120) null, "decided_by" varchar(24) null, "decided_at" timestamptz null, "decision_notes" text null, "rejection_reason" text null, "cancelled_at" timestamptz null, "cancelled_by" varchar(20) null, "cancel_reason" text null, "reschedule_count" int not null default 0, "reschedule_history" jsonb not null default '[]', "created_by" varchar(24) null, constraint "booking_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "booking_workspace_id_index" on "booking" ("workspace_id");`);
    this.addSql(`create unique index "booking_public_id_unique" on "booking" ("public_id");`);
    for (const sql of tenantIndexes('booking', ['created_at', 'start_date_time'], { workspaceIndex: false }))
      this.addSql(sql);
    // The slot hold: an agent's holding bookings (pending, approved, confirmed) never overlap, buffers included.
    // Concurrent requests for one slot: the first insert wins, the others fail with 23P01 (→ 409).
    this.addSql(
      `alter table "booking" add constraint "booking_agent_hold_excl" exclude using gist ("workspace_id" with =, "agent_id" with =, tstzrange("hold_start", "hold_end", '[)') with &&) where ("status" in ('pending', 'approved', 'confirmed'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "booking" cascade;`);
    this.addSql(`drop table if exists "booking_config" cascade;`);
  }
}
