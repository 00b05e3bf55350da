import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { EmailAccount } from '../email';
import { newId } from '../../platform/ids';
import { emit } from '../../platform/outbox/emit';
import { plainOf } from '../../platform/shared/views';
import type { SupportFlowView } from './support.schemas';
import { inTransaction } from '../../platform/shared/tx';
import { SupportFlow } from './support.entity';
import { DEFAULT_SUPPORT_CATEGORIES, DEFAULT_SUPPORT_STAGES, FALLBACK_CATEGORY } from './support.rules';

const FLOW_FIELDS = ['_id', 'name', 'stages', 'categories', 'mailboxAccountIds', 'createdAt', 'updatedAt'] as const;
export const serializeSupportFlow = (f: SupportFlow): SupportFlowView => ({
  ...plainOf(f, FLOW_FIELDS),
  defaultCategory: f.categories[0] ?? FALLBACK_CATEGORY,
});

/**
 * The workspace's support flow, created on first use. Concurrent first calls race on the unique
 * workspace index: `on conflict do nothing` lets exactly one insert win and every caller reads it.
 */
export async function ensureSupportFlow(ctx: Ctx): Promise<SupportFlow> {
  const existing = await ctx.em.findOne(SupportFlow, {});
  if (existing) return existing;
  const now = new Date();
  await ctx.em.execute(
    `insert into support_flow (id, workspace_id, created_at, updated_at, name, stages, categories, mailbox_account_ids, ticket_seq)
     values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, '{}', 0) on conflict (workspace_id) do nothing`,
    [
      newId(now),
      ctx.actor.workspaceId,
      now,
      now,
      'Support',
      JSON.stringify(DEFAULT_SUPPORT_STAGES),
      JSON.stringify(DEFAULT_SUPPORT_CATEGORIES),
    ],
  );
  return ctx.em.findOneOrFail(SupportFlow, {});
}

export interface SupportFlowPatch {
  name?: string;
  categories?: string[];
  mailboxAccountIds?: string[];
}

/** Renames the flow, replaces its categories or the mailboxes whose inbound mail opens tickets. */
export async function updateSupportFlow(ctx: Ctx, input: SupportFlowPatch): Promise<SupportFlowView> {
  const flow = await ensureSupportFlow(ctx);
  if (input.mailboxAccountIds?.length) {
    const found = await ctx.em.find(EmailAccount, { _id: { $in: input.mailboxAccountIds } }, { fields: ['_id'] });
    const known = new Set(found.map((a) => a._id));
    const missing = input.mailboxAccountIds.find((id) => !known.has(id));
    if (missing)
      throw validation(`mailboxAccountIds: no e-mail account with id ${missing}`, [
        { path: 'mailboxAccountIds', error: `no e-mail account with id ${missing}` },
      ]);
  }
  return inTransaction(ctx, async () => {
    if (input.name !== undefined) flow.name = input.name;
    if (input.categories !== undefined) flow.categories = [...new Set(input.categories)];
    if (input.mailboxAccountIds !== undefined) flow.mailboxAccountIds = [...new Set(input.mailboxAccountIds)];
    flow.updatedAt = new Date();
    emit(ctx, {
      type: 'support_flow_updated',
      entityType: 'support_flow',
      entityId: flow._id,
      payload: { flow: serializeSupportFlow(flow) },
    });
    return serializeSupportFlow(flow);
  });
}

/** Next ticket number of the workspace (atomic increment on the flow row; rolls back with the ticket). */
export async function nextTicketNumber(ctx: Ctx, flowId: string): Promise<number> {
  const rows = await ctx.em.execute<{ ticket_seq: number }[]>(
    `update support_flow set ticket_seq = ticket_seq + 1 where id = ? and workspace_id = ? returning ticket_seq`,
    [flowId, ctx.actor.workspaceId],
  );
  return Number(rows[0]!.ticket_seq);
}
