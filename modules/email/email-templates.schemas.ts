import { z } from 'zod';
import { EMAIL_TEMPLATE_CATEGORIES } from './email-template.entity';
import { listQuery, pageParams } from '../../platform/shared/list-query';
import { requiredText, tagsField } from '../../platform/shared/schemas';

const MAX_HTML = 1024 * 1024;
const html = (max = MAX_HTML) => z.string().max(max, `must be at most ${max} characters`);
const nullableHtml = (max = MAX_HTML) => html(max).nullable();
const category = z.enum(EMAIL_TEMPLATE_CATEGORIES, {
  message: `must be one of: ${EMAIL_TEMPLATE_CATEGORIES.join(', ')}`,
});

const metadata = z
  .object({
    subject: z.string().max(998, 'must be at most 998 characters').nullable().optional(),
    preheader: z.string().max(500, 'must be at most 500 characters').nullable().optional(),
  })
  .catchall(z.unknown())
  .refine((o) => JSON.stringify(o).length <= 16_384, 'must be at most 16384 bytes of JSON');

const layoutSettings = z
  .object({
    width: z.enum(['full', 'fixed'], { message: 'must be full or fixed' }).optional(),
    align: z.enum(['left', 'center', 'right'], { message: 'must be left, center or right' }).optional(),
    containerWidth: z.number().int().min(200, 'must be at least 200').max(2000, 'must be at most 2000').optional(),
  })
  .catchall(z.unknown())
  .refine((o) => JSON.stringify(o).length <= 16_384, 'must be at most 16384 bytes of JSON')
  .superRefine((o, ctx) => {
    if (o.align !== undefined && o.width !== 'fixed')
      ctx.addIssue({ code: 'custom', path: ['align'], message: 'applies only with width fixed' });
  });

const templateFields = {
  category,
  bodyHtml: nullableHtml(),
  bodyCss: nullableHtml(200_000),
  compiledHtml: nullableHtml(2 * MAX_HTML),
  plainText: nullableHtml(),
  metadata,
  layoutSettings,
  projectData: z
    .unknown()
    .refine(
      (v) => v === undefined || JSON.stringify(v).length <= MAX_HTML,
      `must be at most ${MAX_HTML} bytes of JSON`,
    ),
  tags: tagsField,
};

export const createEmailTemplateBody = z
  .object({ name: requiredText(200) })
  .extend(z.object(templateFields).partial().shape);
export const updateEmailTemplateBody = z.object({ name: requiredText(200), ...templateFields }).partial();
export const listEmailTemplatesQuery = listQuery({
  dates: false,
  extra: {
    category: category.optional(),
    q: z.string().trim().min(1).max(200).optional(),
    tag: z.string().trim().min(1).max(100).optional(),
  },
});

export const createEmailSignatureBody = z.object({
  name: requiredText(200),
  content: html().refine((v) => v.trim().length > 0, 'is required'),
  textContent: html(100_000).nullable().optional(),
});
export const updateEmailSignatureBody = createEmailSignatureBody.partial();
export const listEmailSignaturesQuery = z.object(pageParams(100));

/** What the service writes: the parsed updateEmailTemplateBody (create bodies add their required fields). */
export type EmailTemplateInput = z.infer<typeof updateEmailTemplateBody>;

/** What the service writes: the parsed updateEmailSignatureBody (create bodies add their required fields). */
export type EmailSignatureInput = z.infer<typeof updateEmailSignatureBody>;
