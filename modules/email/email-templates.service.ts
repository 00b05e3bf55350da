import type { Ctx } from '../../platform/context';
import { createdEvent, emitCreate } from '../../platform/shared/changes';
import { emit } from '../../platform/outbox/emit';
import { findPage, likePattern, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { EmailSignatureView, EmailTemplateSummaryView, EmailTemplateView } from './email.views';
import { createRecord } from '../../platform/shared/records';
import { EmailSignature, EmailTemplate } from './email-template.entity';
import { compileTemplateHtml, type LayoutSettings } from './template-compile';
import type { EmailTemplateInput } from './email-templates.schemas';
import type { EmailSignatureInput } from './email-templates.schemas';
import { deleteById, getRecord } from '../../platform/shared/record-service';

const FIELDS = [
  '_id',
  'name',
  'category',
  'bodyHtml',
  'bodyCss',
  'compiledHtml',
  'plainText',
  'metadata',
  'layoutSettings',
  'projectData',
  'tags',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;
const SUMMARY = ['_id', 'name', 'category', 'metadata', 'tags', 'createdAt', 'updatedAt'] as const;

export function serializeEmailTemplate(t: EmailTemplate, view?: 'full'): EmailTemplateView;
export function serializeEmailTemplate(t: EmailTemplate, view: 'summary'): EmailTemplateSummaryView;
export function serializeEmailTemplate(
  t: EmailTemplate,
  view: 'full' | 'summary',
): EmailTemplateView | EmailTemplateSummaryView;
export function serializeEmailTemplate(
  t: EmailTemplate,
  view: 'full' | 'summary' = 'full',
): EmailTemplateView | EmailTemplateSummaryView {
  return view === 'summary' ? plainOf(t, SUMMARY) : plainOf(t, FIELDS);
}

/** A template given a compiledHtml keeps it; otherwise the server builds (and rebuilds) it from the parts. */
function compile(t: EmailTemplate): void {
  if (!t.compiledByServer) return;
  t.compiledHtml = t.bodyHtml
    ? compileTemplateHtml({
        bodyHtml: t.bodyHtml,
        bodyCss: t.bodyCss,
        layoutSettings: t.layoutSettings as LayoutSettings,
        preheader: t.metadata.preheader as string | undefined,
        title: t.metadata.subject as string | undefined,
      })
    : null;
}

export async function listEmailTemplates(
  ctx: Ctx,
  query: PageRequest & { category?: string; q?: string; tag?: string; view: 'full' | 'summary' },
) {
  const where: Record<string, unknown> = {};
  if (query.category) where.category = query.category;
  if (query.tag) where.tags = { $contains: [query.tag] };
  if (query.q) where.name = { $ilike: likePattern(query.q) };
  const { items, total } = await findPage(ctx.em, EmailTemplate, where, query, { createdAt: 'desc' });
  return { items: items.map((t) => serializeEmailTemplate(t, query.view)), total };
}

export function getEmailTemplate(ctx: Ctx, id: string): Promise<EmailTemplate> {
  return getRecord(ctx, EmailTemplate, id, 'e-mail template');
}

export async function createEmailTemplate(
  ctx: Ctx,
  input: EmailTemplateInput & { name: string },
): Promise<EmailTemplateView> {
  const t = createRecord(ctx, EmailTemplate, {
    name: input.name,
    category: input.category ?? 'other',
    bodyHtml: input.bodyHtml ?? null,
    bodyCss: input.bodyCss ?? null,
    compiledHtml: input.compiledHtml ?? null,
    compiledByServer: input.compiledHtml == null,
    plainText: input.plainText ?? null,
    metadata: input.metadata ?? {},
    layoutSettings: input.layoutSettings ?? {},
    projectData: input.projectData ?? null,
    tags: input.tags ?? [],
    createdBy: ctx.actor.userId,
  });
  compile(t);
  await emitCreate(ctx, t, createdEvent('email_template', { emailTemplate: serializeEmailTemplate(t, 'summary') }));
  return serializeEmailTemplate(t);
}

export async function updateEmailTemplate(ctx: Ctx, id: string, input: EmailTemplateInput): Promise<EmailTemplateView> {
  const t = await getEmailTemplate(ctx, id);
  for (const key of [
    'name',
    'category',
    'bodyHtml',
    'bodyCss',
    'plainText',
    'layoutSettings',
    'projectData',
    'tags',
  ] as const) {
    if (input[key] !== undefined) (t as Record<string, unknown>)[key] = input[key];
  }
  if (input.metadata !== undefined) t.metadata = { ...t.metadata, ...input.metadata };
  // An explicit compiledHtml is kept as given; null hands compilation back to the server.
  if (input.compiledHtml !== undefined) {
    t.compiledByServer = input.compiledHtml === null;
    t.compiledHtml = input.compiledHtml;
  }
  compile(t);
  t.updatedAt = new Date();
  emit(ctx, {
    type: 'email_template_updated',
    entityType: 'email_template',
    entityId: id,
    payload: { emailTemplate: serializeEmailTemplate(t, 'summary') },
  });
  await ctx.em.flush();
  return serializeEmailTemplate(t);
}

export const deleteEmailTemplate = deleteById(getEmailTemplate, 'email_template', (t) => ({
  emailTemplate: serializeEmailTemplate(t, 'summary'),
}));

// Signatures: HTML the client inlines into `html` when sending (the send API takes no signature id).

const SIGNATURE_FIELDS = ['_id', 'name', 'content', 'textContent', 'ownerId', 'createdAt', 'updatedAt'] as const;
export const serializeEmailSignature = (s: EmailSignature): EmailSignatureView => plainOf(s, SIGNATURE_FIELDS);

export async function listEmailSignatures(ctx: Ctx, query: PageRequest) {
  const { items, total } = await findPage(ctx.em, EmailSignature, {}, query, { createdAt: 'desc' });
  return { items: items.map(serializeEmailSignature), total };
}

export function getEmailSignature(ctx: Ctx, id: string): Promise<EmailSignature> {
  return getRecord(ctx, EmailSignature, id, 'e-mail signature');
}

export async function createEmailSignature(
  ctx: Ctx,
  input: { name: string; content: string; textContent?: string | null },
): Promise<EmailSignatureView> {
  const s = createRecord(ctx, EmailSignature, {
    name: input.name,
    content: input.content,
    textContent: input.textContent ?? null,
    ownerId: ctx.actor.userId,
  });
  await ctx.em.flush();
  return serializeEmailSignature(s);
}

export async function updateEmailSignature(
  ctx: Ctx,
  id: string,
  input: EmailSignatureInput,
): Promise<EmailSignatureView> {
  const s = await getEmailSignature(ctx, id);
  if (input.name !== undefined) s.name = input.name;
  if (input.content !== undefined) s.content = input.content;
  if (input.textContent !== undefined) s.textContent = input.textContent;
  s.updatedAt = new Date();
  await ctx.em.flush();
  return serializeEmailSignature(s);
}

export async function deleteEmailSignature(ctx: Ctx, id: string): Promise<void> {
  ctx.em.remove(await getEmailSignature(ctx, id));
  await ctx.em.flush();
}
