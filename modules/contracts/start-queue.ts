/**
 * Durable start of contract envelopes. Sending commits the contract `sent` with `start_queued` (and a
 * NOTIFY) and answers; the worker's starter (platform/intake/starter.ts) claims such rows with this queue,
 * starts their envelope workflows (deterministic ids: a repeat is `already_started`) and clears the flag.
 * A contract voided before its workflow started is not started (nobody was invited; void clears the flag).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { StartQueue } from '../../platform/intake/starter';
import type { Logger } from '../../platform/logger';
import { contractEnvelopeKind } from './contract-envelope.kind';
import type { WorkflowPort } from '../../platform/workflow-port';
import type { ContractEnvelopeInput } from './contract-envelope.messages';

interface ClaimedContract {
  id: string;
  workspace_id: string;
  mode: string;
  deadline_at: Date | null;
  reminder_interval_ms: string | number | null;
  recipients: number;
}

const claimSql = (scoped: boolean): string => `with c as (
    select id from contracts
     where start_queued and status = 'sent' and (start_lease_until is null or start_lease_until < now())
       ${scoped ? 'and workspace_id in (?)' : ''}
     order by id limit ? for update skip locked)
  update contracts k set start_lease_until = now() + make_interval(secs => ?) from c where k.id = c.id
  returning k.id, k.workspace_id, k.mode, k.deadline_at, k.reminder_interval_ms,
    (select count(*)::int from contract_signers s where s.contract_id = k.id) as recipients`;

export function contractStartQueue(deps: {
  orm: MikroORM;
  log: Logger;
  workflows: WorkflowPort;
}): StartQueue<ClaimedContract> {
  const conn = () => deps.orm.em.getConnection();
  return {
    name: 'contract-envelope',
    claim: (scope, limit, leaseS) =>
      conn().execute<ClaimedContract[]>(
        claimSql(Boolean(scope)),
        scope ? [[...scope], limit, leaseS] : [limit, leaseS],
      ),
    starter: () => ({
      start: (r) => {
        const input: ContractEnvelopeInput = {
          workspaceId: r.workspace_id,
          contractId: r.id,
          deadlineAt: r.deadline_at ? new Date(r.deadline_at).toISOString() : null,
          reminderIntervalMs: r.reminder_interval_ms === null ? null : Number(r.reminder_interval_ms),
        };
        return deps.workflows.start({
          kind: contractEnvelopeKind,
          workspaceId: r.workspace_id,
          id: r.id,
          input,
          meta: { workspaceId: r.workspace_id, contractId: r.id, mode: r.mode, signers: r.recipients },
        });
      },
    }),
    /** The engine refused (not an outage): back to draft, saying why, so the sender can fix it and send again. */
    async refused(r, reason) {
      await conn().execute(
        `update contracts set status = 'draft', sent_at = null, workflow_id = null, last_error = ?, start_queued = false,
           start_lease_until = null, updated_at = now() where id = ? and status = 'sent' and start_queued`,
        [reason, r.id],
      );
    },
    async markStarted(_rows, ids) {
      if (!ids.length) return;
      await conn().execute(
        `update contracts set start_queued = false, start_lease_until = null where id in (?) and start_queued`,
        [ids],
      );
    },
  };
}
