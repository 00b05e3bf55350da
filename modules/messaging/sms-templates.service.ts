import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { conflict, validation } from '../../platform/errors';
import { getRecord } from '../../platform/shared/record-service';
import { isId } from '../../platform/ids';
import { renderTemplate, type PlaceholderOptions } from '../../platform/shared/placeholders.pure';
import { createRecord } from '../../platform/shared/records';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { SmsTemplateView } from './sms.views';
import { SmsTemplate } from './sms-message.entity';
import { placeholdersOf } from './sms-placeholders';

/** SMS templates: read with the sms scope (GET /sms-templates); written by owners/admins (beyond the spec). */

export const MAX_SMS_TEMPLATES = 500;

export const serializeSmsTemplate = (t: SmsTemplate): SmsTemplateView => ({
  ...plainOf(t, ['_id', 'name', 'message', 'category', 'createdBy', 'createdAt', 'updatedAt']),
  placeholders: placeholdersOf(t.message),
});

export async function listSmsTemplates(ctx: Ctx, q: PageRequest & { category?: string }) {
  return findPage(ctx.em, SmsTemplate, q.category ? { category: q.category } : {}, q, { name: 'asc' });
}

export async function getSmsTemplate(ctx: Ctx, id: string): Promise<SmsTemplate> {
  return getRecord(ctx, SmsTemplate, id, 'sms template');
}

async function save(ctx: Ctx, t: SmsTemplate): Promise<SmsTemplate> {
  try {
    await ctx.em.persist(t).flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw conflict(`an SMS template named "${t.name}" already exists`);
    throw err;
  }
  return t;
}

export async function createSmsTemplate(
  ctx: Ctx,
  input: { name: string; message: string; category?: string | null },
): Promise<SmsTemplate> {
  if ((await ctx.em.count(SmsTemplate, {})) >= MAX_SMS_TEMPLATES)
    throw conflict(`a workspace can have at most ${MAX_SMS_TEMPLATES} SMS templates`);
  return save(
    ctx,
    createRecord(ctx, SmsTemplate, {
      name: input.name,
      message: input.message,
      category: input.category ?? null,
      createdBy: ctx.actor.userId,
    }),
  );
}

export async function updateSmsTemplate(
  ctx: Ctx,
  id: string,
  input: { name?: string; message?: string; category?: string | null },
): Promise<SmsTemplate> {
  const t = await getSmsTemplate(ctx, id);
  if (input.name !== undefined) t.name = input.name;
  if (input.message !== undefined) t.message = input.message;
  if (input.category !== undefined) t.category = input.category;
  return save(ctx, t);
}

export async function deleteSmsTemplate(ctx: Ctx, id: string): Promise<void> {
  await ctx.em.remove(await getSmsTemplate(ctx, id)).flush();
}

/**
 * A template of the workspace rendered for one recipient with the caller's placeholder rules (a
 * sequence step's namespaces: `{{contact.firstName}}`, `{{x | default:"…"}}`); `{{ai:<id>}}` stays
 * for the caller. The template is read when the message is sent, so an edit reaches later sends.
 */
export async function renderStoredSmsTemplate(
  ctx: Ctx,
  templateId: string,
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
  field = 'templateId',
): Promise<{ text: string; unresolved: string[] }> {
  const t = isId(templateId) ? await ctx.em.findOne(SmsTemplate, { _id: templateId }) : null;
  if (!t) throw validation(`${field}: no SMS template ${templateId} in this workspace`);
  const r = renderTemplate(t.message, context, opts);
  return { text: r.text, unresolved: [...new Set(r.unresolved.map((u) => u.placeholder))] };
}
