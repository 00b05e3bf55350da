import { z } from 'zod';
import { MAX_BULK_EMAIL_RECIPIENTS } from './email-bulk.service';
import { ref } from '../../platform/references/refs';

const id = z
  .string()
  .trim()
  .regex(/^[0-9a-f]{24}$/, 'must be a 24-character hex id');
const address = z.string().max(600, 'must be at most 600 characters');

/**
 * A recipient: an address string, or `{ email (alias to), name?, personId?, companyId?, personalizedSubject?,
 * personalizedHtml? }`.
 */
const recipient = z.preprocess(
  (v) => (typeof v === 'string' ? { email: v } : v),
  z
    .object(
      {
        email: address.optional(),
        to: address.optional().describe('alias of email'),
        name: z.string().trim().max(200, 'must be at most 200 characters').optional(),
        personId: ref('person', id).optional(),
        companyId: ref('company', id).optional(),
        personalizedSubject: z.string().max(998, 'must be at most 998 characters').optional(),
        personalizedHtml: z.string().optional(),
      },
      { error: () => 'must be an e-mail address or an object with email' },
    )
    .transform((r, ctx) => {
      const email = r.email ?? r.to;
      if (!email) {
        ctx.addIssue({ code: 'custom', path: ['email'], message: 'is required' });
        return z.NEVER;
      }
      const { to: _to, ...rest } = r;
      return { ...rest, email };
    }),
);

/** POST /emails/bulk (spec: Email, SMS, webhooks). `bodyHtml` is an alias of html here. */
export const bulkEmailBody = z
  .object({
    accountId: ref('email-account', z.string({ message: 'is required' }).trim().min(1, 'is required').max(24)),
    subject: z.string({ message: 'is required' }).max(998, 'must be at most 998 characters'),
    html: z.string().optional(),
    bodyHtml: z.string().optional().describe('alias of html'),
    text: z.string().optional(),
    recipients: z
      .array(recipient, { message: 'is required (an array of addresses or recipient objects)' })
      .min(1, 'at least one recipient is required')
      .max(MAX_BULK_EMAIL_RECIPIENTS, `at most ${MAX_BULK_EMAIL_RECIPIENTS} recipients per bulk send`),
    trackOpens: z.boolean().optional(),
    immediate: z.boolean().optional(),
  })
  .transform(({ bodyHtml, ...b }) => ({ ...b, html: b.html ?? bodyHtml }));

export const bulkParams = z.object({ queueId: id });

export const bulkProgressQuery = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(500, 'must be at most 500').default(20),
    status: z.enum(['pending', 'sent', 'failed', 'unknown']).optional(),
  })
  .strict();
