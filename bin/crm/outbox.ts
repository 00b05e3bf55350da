/** `crm outbox list|retry|drop`: parked outbox deliveries (failed side effects) across workspaces. */
import { validation } from '../../platform/errors';
import { DELIVERY_STATES, listOutboxDeliveriesQuery } from '../../platform/outbox/admin.schemas';
import { dropDelivery, listDeliveries, retryDelivery, serializeDelivery } from '../../platform/outbox/admin.service';
import { parseId } from '../../modules/workspaces';
import type { CommandSpec, Flag } from './command-spec';

const workspace: Flag = { name: 'workspace', value: '<id>', required: false, description: 'only this workspace' };
const id: Flag = { name: 'id', value: '<deliveryId>', required: true, description: 'the delivery (from outbox list)' };
const optionalWorkspace = (v: string | undefined) => (v === undefined ? null : parseId(v, 'workspace'));

type View = ReturnType<typeof serializeDelivery>;
const line = (d: View) =>
  `  ${d._id}  ${d.status.padEnd(7)} ${d.eventType} ${d.entityType}/${d.entityId} (workspace ${d.workspaceId}), ` +
  `${d.attempts} attempt(s)${d.nextAttemptAt ? `, next ${d.nextAttemptAt}` : ''}${d.lastError ? `\n      last error: ${d.lastError}` : ''}`;

/** `outbox <name> --id … [--workspace …]`: `act` on one parked delivery, which then `is` (the human line says so). */
function deliveryCommand(name: string, summary: string, act: typeof retryDelivery, is: string): CommandSpec {
  return {
    name: `outbox ${name}`,
    summary,
    flags: [id, workspace],
    prepare(v) {
      const deliveryId = parseId(v.id as string, 'outbox delivery');
      const workspaceId = optionalWorkspace(v.workspace);
      return async (em) => {
        const d = serializeDelivery(await act(em, workspaceId, deliveryId));
        return { result: { ...d }, human: `Delivery ${d._id} (${d.subscriber}, ${d.eventType}) ${is}.` };
      };
    },
  };
}

export const outboxCommands: CommandSpec[] = [
  {
    name: 'outbox list',
    summary:
      'Side effects that did not go through (failing, failed, queued behind them, dropped), per subscriber with their last error',
    flags: [
      workspace,
      { name: 'subscriber', value: '<name>', required: false, description: 'e.g. booking-notifications' },
      { name: 'status', value: DELIVERY_STATES.join('|'), required: false, description: 'default: all' },
      { name: 'limit', value: '<n>', required: false, description: 'at most this many (default 100, max 100)' },
    ],
    prepare(v) {
      const workspaceId = optionalWorkspace(v.workspace);
      const parsed = listOutboxDeliveriesQuery.safeParse({
        subscriber: v.subscriber,
        status: v.status,
        limit: v.limit ?? 100,
      });
      if (!parsed.success)
        throw validation(parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('; '));
      return async (em) => {
        const { items, total } = await listDeliveries(em, workspaceId, parsed.data);
        const views = items.map(serializeDelivery);
        const bySubscriber = new Map<string, View[]>();
        for (const d of views) bySubscriber.set(d.subscriber, [...(bySubscriber.get(d.subscriber) ?? []), d]);
        const human = views.length
          ? [
              ...[...bySubscriber].map(([name, list]) => `${name} (${list.length}):\n${list.map(line).join('\n')}`),
              ...(total > views.length ? [`… ${total - views.length} more (narrow with --subscriber/--status)`] : []),
            ].join('\n')
          : 'No parked outbox deliveries.';
        return { result: { deliveries: views, total }, human };
      };
    },
  },
  deliveryCommand(
    'retry',
    'Attempt a parked delivery again at once (running dispatchers are woken), with a fresh retry schedule',
    retryDelivery,
    'queued for a retry',
  ),
  deliveryCommand(
    'drop',
    'Never attempt a parked delivery again (kept as dropped); later ones of its record go on',
    dropDelivery,
    'dropped',
  ),
];
