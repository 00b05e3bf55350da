/**
 * The booking approval workflow kind (domain/workflow-kinds.ts `defineWorkflowKind`), declared in its module
 * and named by the module's `workflows` (bookings.module.ts): adding a module with a workflow edits no shared
 * registry.
 */
import { defineWorkflowKind, quoteName } from '../../platform/workflow-kinds';
import type { BookingApprovalInput } from './booking-approval.messages';

export interface BookingApprovalMeta {
  workspaceId: string;
  bookingId: string;
  configId: string;
  configName: string;
  /** ISO time the approval deadline passes. */
  deadlineAt: string;
}

/**
 * One workflow per booking that needs approval (`booking-approval:<workspaceId>:<bookingId>`): timers, reminders, the
 * approve/reject updates.
 */
export const bookingApprovalKind = defineWorkflowKind<BookingApprovalMeta, BookingApprovalInput>({
  kind: 'booking-approval',
  workflowType: 'bookingApprovalWorkflow',
  // Before and after the approval-reminder-offsets patch (reminders at offsets, the deadlineMoved signal).
  replayFixtures: ['booking-approval.history.json', 'booking-approval-reminder-offsets.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId, CrmEntityType: 'booking', CrmEntityId: m.bookingId }),
  memo: (m) => ({
    workspaceId: m.workspaceId,
    bookingId: m.bookingId,
    configId: m.configId,
    configName: m.configName,
    deadlineAt: m.deadlineAt,
  }),
  summary: (m) => `Booking approval ${m.bookingId} · ${quoteName(m.configName)} · deadline ${m.deadlineAt}`,
});
