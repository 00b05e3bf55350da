import { Migration } from '@mikro-orm/migrations';

// Covering indexes for the report and metric aggregates (bench/reports.bench.ts): each query reads
// one workspace's rows in a time range or per stage, and the included columns let Postgres answer
// from the index alone (index-only scans once the visibility map is set by (auto)vacuum).
export class Migration20261123220720_report_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "deal_report_created_index" on "deal" ("workspace_id", "created_at") include ("value", "owner_id", "status", "flow_id", "stage_id", "priority", "probability");`,
    );
    this.addSql(
      `create index "deal_report_stage_index" on "deal" ("workspace_id", "stage_id") include ("value", "probability", "created_at", "owner_id", "status", "flow_id");`,
    );
    this.addSql(
      `create index "deal_report_won_index" on "deal" ("workspace_id", "won_date") include ("value", "owner_id", "flow_id", "stage_id", "priority") where "status" = 'won';`,
    );
    this.addSql(
      `create index "deal_report_lost_index" on "deal" ("workspace_id", "lost_date") include ("value", "owner_id", "flow_id", "stage_id", "priority") where "status" = 'lost';`,
    );
    this.addSql(
      `create index "activity_report_created_index" on "activity" ("workspace_id", "created_at") include ("system", "owner_id", "type");`,
    );
  }

  override async down(): Promise<void> {
    for (const name of [
      'deal_report_created_index',
      'deal_report_stage_index',
      'deal_report_won_index',
      'deal_report_lost_index',
      'activity_report_created_index',
    ]) {
      this.addSql(`drop index if exists "${name}";`);
    }
  }
}
