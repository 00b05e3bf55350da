import type { RouteFactory } from '../../platform/http/app-deps';
import { createSendThrottle } from './bulk-throttle';
import { bulkEmailBody, bulkParams, bulkProgressQuery } from './email-bulk.schemas';
import {
  createBulkEmail,
  getBulkProgress,
  MAX_BULK_EMAIL_RECIPIENTS,
  MAX_IMMEDIATE_RECIPIENTS,
} from './email-bulk.service';
import { created, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { bulkEmailCreatedView, bulkProgressView } from './email.views';

const section = 'E-mail';

export const emailBulkRoutes: RouteFactory = (deps) => {
  const workflows = deps.workflows;
  // Immediate sends are paced per mailbox in this process like the worker paces queued ones.
  const throttle = createSendThrottle(deps.config.emailBulk.perAccountPerSecond);
  const settings = { concurrency: deps.config.emailBulk.concurrency, batchSize: deps.config.emailBulk.batchSize };
  return [
    route({
      method: 'POST',
      path: '/api/v1/emails/bulk',
      section,
      access: { scopes: ['write'], roles: ['owner', 'admin'] },
      body: bulkEmailBody,
      successStatus: 201,
      summary: `Send one e-mail to 1-${MAX_BULK_EMAIL_RECIPIENTS} recipients from a connected mailbox, personalised per recipient (personalizedSubject/personalizedHtml, placeholders such as {{contact.firstName}}, {{name}}, {{company.name}}, {{x | default:"there"}}).`,
      description: `Queued by default: one Temporal workflow (email-bulk:<workspaceId>:<queueId>) sends in batches, paced per mailbox, each recipient at most once; 201 { data: { queued: true, queueId, summary } }, progress at GET /emails/bulk/:queueId. \`immediate: true\` (only with ${MAX_IMMEDIATE_RECIPIENTS} or fewer recipients, 400 otherwise) sends now: 201 { data: { immediate: true, queueId, summary, results } }. Owners and admins only. Addresses repeated in one send get one e-mail (summary.duplicatesRemoved).`,
      response: envelopes.data(bulkEmailCreatedView),
      handler: async ({ ctx, body }) => {
        return created(
          await createBulkEmail(ctx, body, {
            email: {
              transport: deps.messaging.transport,
              accounts: deps.messaging.accounts,
              tracking: deps.messaging.tracking,
            },
            throttle,
            settings,
            workflows,
            log: deps.log.child({ component: 'email-bulk' }),
          }),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/emails/bulk/:queueId',
      section,
      access: { scopes: ['read'] },
      params: bulkParams,
      query: bulkProgressQuery,
      resources: { queueId: 'email-bulk' },
      summary:
        'Progress of a bulk send: { data: { queueId, status, summary: { total, pending, sent, failed, unknown }, recipients: [{ index, email, status, emailId, error, sentAt }] }, page, limit, total } (recipients paged in send order; filter status).',
      description:
        '`unknown`: the attempt stopped after the message may have been handed to the mail server, so it is never sent again automatically.',
      // The page meta (page, limit, total) counts the recipients of data.recipients.
      response: envelopes.list(bulkProgressView).extend({ data: bulkProgressView }),
      handler: async ({ ctx, params, query }) => ({
        status: 200,
        body: await getBulkProgress(ctx, params.queueId, query),
      }),
    }),
  ];
};
