import { z } from 'zod';
import { listQuery } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';
import { ref } from '../../platform/references/refs';

const address = z.string().max(600, 'must be at most 600 characters');
const addressList = z
  .union([address, z.array(address).max(50, 'at most 50 addresses')])
  .transform((v) => (Array.isArray(v) ? v : [v]));
const linkId = z
  .string()
  .trim()
  .max(24)
  .refine((v) => /^[0-9a-f]{24}$/.test(v), 'must be a 24-character hex id');

/** Single send (spec: Email single-send shape). `bodyHtml` belongs to templates and bulk sends: refused here. */
export const sendEmailBody = z
  .object({
    accountId: ref('email-account', z.string({ message: 'is required' }).trim().min(1, 'is required').max(24)),
    to: addressList,
    subject: z.string({ message: 'is required' }).max(998, 'must be at most 998 characters'),
    html: z.string().optional(),
    text: z.string().optional(),
    cc: addressList.optional(),
    bcc: addressList.optional(),
    linkPersonId: ref('person', linkId).optional(),
    linkCompanyId: ref('company', linkId).optional(),
    linkDealId: ref('deal', linkId).optional(),
    linkLeadId: ref('lead', linkId).optional(),
    trackOpens: z.boolean().optional(),
    replyToMessageId: z.string().trim().min(1).max(1000).optional(),
    idempotencyKey: z.string().optional(),
    bodyHtml: z.unknown().optional(),
  })
  .superRefine((b, ctx) => {
    if (b.bodyHtml !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['bodyHtml'],
        message: 'is not accepted on a single send: put the HTML (with any signature inlined) in html',
      });
  });

export const EMAIL_FOLDERS = ['inbox', 'sent'] as const;

export const listEmailsQuery = listQuery({
  strict: true,
  extra: {
    accountId: objectId.optional(),
    folder: z.enum(EMAIL_FOLDERS).optional(),
    direction: z.enum(['inbound', 'outbound']).optional(),
    status: z.enum(['queued', 'sent', 'failed', 'unknown', 'received', 'bounced']).optional(),
    personId: objectId.optional(),
    companyId: objectId.optional(),
    dealId: objectId.optional(),
    leadId: objectId.optional(),
    threadId: objectId.optional(),
    q: z.string().trim().min(1).max(200).optional(),
  },
});

export const threadParams = z.object({ threadId: objectId });

export const rsvpBody = z
  .object({
    response: z
      .enum(['accepted', 'declined', 'tentative'], { message: 'must be accepted, declined or tentative' })
      .optional(),
    status: z
      .enum(['accepted', 'declined', 'tentative'], { message: 'must be accepted, declined or tentative' })
      .optional()
      .describe('alias of response'),
    comment: z.string().trim().max(2000, 'must be at most 2000 characters').optional(),
  })
  // A missing response is checked after the e-mail is found, so an unknown id answers 404 first.
  .transform((b) => ({ response: b.response ?? b.status, ...(b.comment ? { comment: b.comment } : {}) }));
