/**
 * Which actions the execution workflow runs as local activities (from engine version 3): those whose whole effect is
 * a write to the CRM's own database, committed in one transaction with the step row (handler kind `crm`: create_note,
 * update_record, …): short, idempotent by the step log, never calling out. They run in the worker that runs the
 * workflow task: no activity task round trip through the Temporal server, one marker in the history instead of three
 * activity events and a workflow task. The actions listed here call out (e-mail, SMS, HTTP, sequences) or only fail
 * (accounting, create_offer) and stay regular activities with heartbeats. Workflow-safe (no imports);
 * `automation-local-actions.test.ts` holds it equal to the registry's handler kinds. Moving an existing action type
 * between the two changes the commands of runs in flight: it needs a new engine version.
 */
const REMOTE_ACTIONS: ReadonlySet<string> = new Set([
  'send_email',
  'send_sms',
  'add_to_sequence',
  'http_request',
  'send_webhook',
  'create_offer',
]);

export const isLocalAction = (actionType: unknown): boolean =>
  typeof actionType === 'string' && !REMOTE_ACTIONS.has(actionType) && !actionType.startsWith('accounting_');
