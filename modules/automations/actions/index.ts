/**
 * Action registry: action type → handler, and the config a handler receives (placeholders
 * resolved against the context, then parsed with the action's schema so defaults are filled in).
 */
import { ACTION_CONFIG_SCHEMAS } from '../action-config.schemas';
import type { ActionType } from '../definition.schemas';
import { renderTemplate, resolveDeep } from '../../../platform/shared/placeholders.pure';
import { issuesOf } from '../../../platform/shared/zod-kit';
import type { Context } from '../engine/types.pure';
import { httpRequestAction, sendEmailAction, sendSmsAction, sendWebhookAction } from './outbound';
import {
  addToListAction,
  assignUserAction,
  createContactAction,
  createDealAction,
  createLeadAction,
  createRecordAction,
  moveDealStageAction,
  removeFromListAction,
  setAccessAction,
  updateRecordAction,
} from './records';
import { createActivityAction, createNoteAction, createRecallAction, createTaskAction } from './timeline';
import { fail, type ActionHandler } from './types';
import { accountingAction, createOfferAction } from './unavailable';
import { addToSequenceAction } from './sequence';

export const ACTION_HANDLERS: Record<ActionType, ActionHandler<never>> = {
  send_email: sendEmailAction,
  send_sms: sendSmsAction,
  create_task: createTaskAction,
  create_recall: createRecallAction,
  create_note: createNoteAction,
  create_activity: createActivityAction,
  update_record: updateRecordAction,
  assign_user: assignUserAction,
  set_access: setAccessAction,
  move_deal_stage: moveDealStageAction,
  create_lead: createLeadAction,
  create_deal: createDealAction,
  create_contact: createContactAction,
  create_offer: createOfferAction,
  create_record: createRecordAction,
  add_to_sequence: addToSequenceAction,
  http_request: httpRequestAction,
  send_webhook: sendWebhookAction,
  add_to_list: addToListAction,
  remove_from_list: removeFromListAction,
  accounting_create_customer: accountingAction,
  accounting_update_customer: accountingAction,
  accounting_create_case: accountingAction,
  accounting_create_order_confirmation: accountingAction,
  accounting_create_invoice: accountingAction,
  accounting_book_invoice: accountingAction,
};

export function handlerFor(actionType: unknown): { type: ActionType; handler: ActionHandler<Record<string, unknown>> } {
  const handler = typeof actionType === 'string' ? ACTION_HANDLERS[actionType as ActionType] : undefined;
  if (!handler) return fail(`unknown action type ${JSON.stringify(actionType)}`);
  return { type: actionType as ActionType, handler: handler as ActionHandler<Record<string, unknown>> };
}

/**
 * The config an action runs with: placeholders resolved (e-mail bodies HTML-escaped, a value
 * that is exactly one placeholder keeps its type), then the spec's defaults. This resolved
 * config is what the step log stores as the step's input.
 */
export function resolveActionConfig(
  actionType: ActionType,
  raw: unknown,
  context: Context,
  timezone: string,
): { config: Record<string, unknown>; unresolved: string[] } {
  const source = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const { body, ...rest } = source;
  const resolved = resolveDeep(actionType === 'send_email' ? rest : source, context, { timezone });
  const value = resolved.value as Record<string, unknown>;
  const unresolved = resolved.unresolved.map((u) => `${u.placeholder} (${u.reason})`);
  if (actionType === 'send_email' && typeof body === 'string') {
    const html = renderTemplate(body, context, { escape: 'html', timezone });
    value.body = html.text;
    unresolved.push(...html.unresolved.map((u) => `${u.placeholder} (${u.reason})`));
  }
  const schema = ACTION_CONFIG_SCHEMAS[actionType];
  const issues = issuesOf(schema, value, 'config');
  if (issues.length) fail(`${actionType}: ${issues.map((i) => `${i.path}: ${i.error}`).join('; ')}`);
  return { config: schema.parse(value) as Record<string, unknown>, unresolved: [...new Set(unresolved)].slice(0, 20) };
}
