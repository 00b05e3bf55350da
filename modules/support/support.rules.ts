import { validation } from '../../platform/errors';
import { defineTransitions } from '../../platform/shared/transitions';
import { stageById, type KanbanStage } from '../../platform/shared/stages';

export const TICKET_STATUSES = ['open', 'pending', 'on_hold', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];
/** Statuses counted as open work (support customers' openTickets, reports). */
export const ACTIVE_STATUSES: readonly TicketStatus[] = ['open', 'pending', 'on_hold'];

/** Support ticket statuses (spec: not shown). A closed ticket only reopens; resolved may close or reopen. */
export const ticketStatusTransitions = defineTransitions<TicketStatus>({
  resource: 'support ticket',
  field: 'status',
  states: TICKET_STATUSES,
  transitions: {
    open: ['pending', 'on_hold', 'resolved', 'closed'],
    pending: ['open', 'on_hold', 'resolved', 'closed'],
    on_hold: ['open', 'pending', 'resolved', 'closed'],
    resolved: ['open', 'closed'],
    closed: ['open'],
  },
  notes: [
    'A public reply by an agent moves an open ticket to pending (waiting on the customer).',
    'A customer message (inbound e-mail) moves pending and on_hold tickets back to open and reopens resolved and closed ones.',
    'Events: support_ticket_resolved, support_ticket_closed, support_ticket_reopened (resolved/closed → open) besides support_ticket_updated.',
  ],
});

export type SupportStage = KanbanStage;

/** The kanban stages of a new support flow (spec: fields of the support flow are not shown). */
export const DEFAULT_SUPPORT_STAGES: readonly SupportStage[] = [
  { id: 1, title: 'New', order: 1 },
  { id: 2, title: 'In progress', order: 2 },
  { id: 3, title: 'Waiting on customer', order: 3 },
  { id: 4, title: 'Done', order: 4 },
];
export const DEFAULT_SUPPORT_CATEGORIES: readonly string[] = ['general', 'technical', 'billing', 'feature_request'];
export const FALLBACK_CATEGORY = 'general';

export function assertStage(stages: readonly SupportStage[], field: string, stageId: number): void {
  stageById(stages, 'support', field, stageId);
}

export function assertCategory(categories: readonly string[], category: string): void {
  const allowed = categories.length ? categories : [FALLBACK_CATEGORY];
  if (!allowed.includes(category)) {
    throw validation(`category: must be one of ${allowed.join(', ')}`, [
      { path: 'category', error: `must be one of ${allowed.join(', ')}` },
    ]);
  }
}

/** Ticket reference carried in e-mail subjects: `[#123]`; an answer quoting it continues the ticket. */
export const ticketRef = (n: number): string => `[#${n}]`;
export function ticketNumberInSubject(subject: string | null | undefined): number | null {
  const m = /\[#(\d{1,9})\]/.exec(subject ?? '');
  return m ? Number(m[1]) : null;
}

/** The event of a status change besides support_ticket_updated (null: none). */
export function statusEvent(
  from: TicketStatus,
  to: TicketStatus,
): 'support_ticket_resolved' | 'support_ticket_closed' | 'support_ticket_reopened' | null {
  if (from === to) return null;
  if (to === 'resolved') return 'support_ticket_resolved';
  if (to === 'closed') return 'support_ticket_closed';
  if ((from === 'resolved' || from === 'closed') && ACTIVE_STATUSES.includes(to)) return 'support_ticket_reopened';
  return null;
}
