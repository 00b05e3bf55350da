import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { mapLimited } from '../../platform/shared/concurrency';
import type { MessageLinks } from './outbound.service';
import type { SmsGateway } from '../../platform/ports/messaging.port';
import { fillPlaceholders } from './sms-placeholders';
import { sendSms } from './sms.service';
import type { SmsBulkResultView } from './sms.views';

/** POST /sms/bulk: one idempotent send per recipient (key `bulk:<bulkId>:<index>`), results per recipient. */

export const MAX_BULK_RECIPIENTS = 500;
/** Sends in flight at once: bounded so one bulk call neither floods the gateway nor the pool. */
const BULK_CONCURRENCY = 8;

export interface BulkRecipient extends MessageLinks {
  to: string;
  message?: string;
  placeholders?: Record<string, string | number | boolean | null>;
}

export interface BulkSmsInput {
  message?: string;
  from?: string;
  recipients: BulkRecipient[];
  bulkId?: string;
}

export interface BulkResult {
  index: number;
  to: string;
  status: 'sent' | 'failed';
  smsId?: string;
  replayed?: boolean;
  error?: string;
  code?: string;
}

/** `newCtx` gives each send its own entity manager (bound to the caller's workspace): sends run side by side. */
export async function sendBulkSms(
  input: BulkSmsInput,
  deps: { gateway: SmsGateway; newCtx: () => Ctx },
): Promise<SmsBulkResultView> {
  deps.gateway.assertConfigured?.();
  const bulkId = input.bulkId ?? newId();
  const results = await mapLimited(input.recipients, BULK_CONCURRENCY, async (r, index): Promise<BulkResult> => {
    const base = { index, to: r.to };
    const template = r.message ?? input.message ?? '';
    const filled = fillPlaceholders(template, r.placeholders ?? {});
    if ('missing' in filled)
      return {
        ...base,
        status: 'failed',
        code: 'validation',
        error: `no value for placeholder(s) ${filled.missing.map((m) => `{{${m}}}`).join(', ')}`,
      };
    try {
      const sent = await sendSms(
        deps.newCtx(),
        {
          to: r.to,
          message: filled.text,
          from: input.from,
          idempotencyKey: `bulk:${bulkId}:${index}`,
          source: 'api',
          sourceRef: `bulk:${bulkId}`,
          links: { personId: r.personId, companyId: r.companyId, leadId: r.leadId, dealId: r.dealId },
        },
        { gateway: deps.gateway },
      );
      return { ...base, to: sent.to, status: 'sent', smsId: sent.smsId, replayed: sent.replayed };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return { ...base, status: 'failed', code: err.code, error: err.message };
    }
  });
  const sent = results.filter((r) => r.status === 'sent').length;
  return { bulkId, summary: { total: results.length, sent, failed: results.length - sent }, results };
}
