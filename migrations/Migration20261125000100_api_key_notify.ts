import { Migration } from '@mikro-orm/migrations';

/**
 * API processes cache key lookups (modules/workspaces/key-cache.ts) and empty the cache on a NOTIFY
 * of crm_api_key_changed. Triggers send it for every change that alters what a key may do
 * (revocation, role, scopes, owner, deletion; a workspace's status or name), whoever writes it:
 * the API, the operator CLI or plain SQL. The NOTIFY is delivered at commit.
 */
export class Migration20261125000100_api_key_notify extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function crm_api_key_changed() returns trigger language plpgsql as $$
begin
  -- Ids only (no secret): 'key:<id>' or 'workspace:<id>'.
  perform pg_notify('crm_api_key_changed', case tg_table_name when 'api_key' then 'key:' else 'workspace:' end || old.id);
  return null;
end $$;`);
    this.addSql(`create trigger api_key_changed after update on "api_key" for each row
  when (old.revoked_at is distinct from new.revoked_at or old.role is distinct from new.role
        or old.scopes is distinct from new.scopes or old.workspace_id is distinct from new.workspace_id
        or old.user_id is distinct from new.user_id or old.hash is distinct from new.hash)
  execute function crm_api_key_changed();`);
    this.addSql(
      `create trigger api_key_deleted after delete on "api_key" for each row execute function crm_api_key_changed();`,
    );
    this.addSql(`create trigger workspace_changed after update on "workspace" for each row
  when (old.status is distinct from new.status or old.name is distinct from new.name)
  execute function crm_api_key_changed();`);
    this.addSql(
      `create trigger workspace_deleted after delete on "workspace" for each row execute function crm_api_key_changed();`,
    );
  }

  override async down(): Promise<void> {
    for (const [trigger, table] of [
      ['api_key_changed', 'api_key'],
      ['api_key_deleted', 'api_key'],
      ['workspace_changed', 'workspace'],
      ['workspace_deleted', 'workspace'],
    ])
      this.addSql(`drop trigger if exists ${trigger} on "${table}";`);
    this.addSql(`drop function if exists crm_api_key_changed();`);
  }
}
