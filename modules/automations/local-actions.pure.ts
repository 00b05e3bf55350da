/**
 * Action types whose whole effect is a write to the CRM's own database, committed in one transaction with the step
 * row (handler kind `crm`): short, idempotent by the step log, never calling out. From engine version 3 the execution
 * workflow runs them as local activities (in the worker that runs the workflow task): no activity task round trip
 * through the Temporal server, one marker in the history instead of three activity events and a workflow task. Actions
 * that call out (e-mail, SMS, HTTP, sequences, AI) or take long stay regular activities with heartbeats. Workflow-safe
 * (no imports); `local-actions.test.ts` holds it equal to the registry's `crm` handlers.
 */
export const LOCAL_ACTION_TYPES: ReadonlySet<string> = new Set([
  'create_task',
  'create_recall',
  'create_note',
  'create_activity',
  'update_record',
  'assign_user',
  'set_access',
  'move_deal_stage',
  'create_lead',
  'create_deal',
  'create_contact',
  'create_record',
  'add_to_list',
  'remove_from_list',
]);

export const isLocalAction = (actionType: unknown): boolean =>
  typeof actionType === 'string' && LOCAL_ACTION_TYPES.has(actionType);
