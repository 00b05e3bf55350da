import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { renderTemplate, type PlaceholderOptions } from '../../platform/shared/placeholders.pure';
import { EmailTemplate } from './email-template.entity';

export interface RenderedEmail {
  subject: string;
  html?: string;
  text?: string;
  unresolved: string[];
}

/**
 * Renders placeholders (`{{contact.firstName}}`, `{{x | default:"fallback"}}`) against a context
 * of records: values are HTML-escaped in html, written as they are in subject and text.
 */
export function renderEmailParts(
  parts: { subject: string; html?: string | null; text?: string | null },
  context: Record<string, unknown>,
  opts: PlaceholderOptions = {},
): RenderedEmail {
  const unresolved: string[] = [];
  const run = (s: string, escape: boolean) => {
    const r = renderTemplate(s, context, { ...opts, ...(escape ? { escape: 'html' as const } : {}) });
    unresolved.push(...r.unresolved.map((u) => u.placeholder));
    return r.text;
  };
  return {
    subject: run(parts.subject, false)
      .replace(/[\r\n]+/g, ' ')
      .trim(),
    ...(parts.html ? { html: run(parts.html, true) } : {}),
    ...(parts.text ? { text: run(parts.text, false) } : {}),
    unresolved: [...new Set(unresolved)],
  };
}

/** A template of the workspace rendered for one recipient; `subject` overrides the template's own. */
export async function renderStoredTemplate(
  ctx: Ctx,
  templateId: string,
  context: Record<string, unknown>,
  overrides: { subject?: string } = {},
  field = 'templateId',
): Promise<RenderedEmail> {
  const t = isId(templateId) ? await ctx.em.findOne(EmailTemplate, { _id: templateId }) : null;
  if (!t) throw validation(`${field}: no e-mail template ${templateId} in this workspace`);
  const subject =
    overrides.subject?.trim() || (typeof t.metadata.subject === 'string' ? t.metadata.subject : '') || t.name;
  return renderEmailParts({ subject, html: t.compiledHtml ?? t.bodyHtml, text: t.plainText }, context);
}
