/**
 * The messaging module's public surface: what code outside modules/messaging may import (dependency-cruiser
 * `module-public-surface`): addresses and text helpers, the outbound ledger every sender claims its messages in
 * (and the per-mailbox quota), the e-mail transport and SMS gateway ports, SMS sending and templates, and the SMS
 * scheduler port with its Temporal adapter (the API's bootstrap). Declaration files (`*.module.ts`, `*.resource.ts`,
 * `*.events.ts`, `*.messages.ts`, `*.workflow.ts`) are read by the registries directly, the port declarations
 * (`*.port.ts`) by adapters/; tests and benches may reach inside. The e-mail module builds on it (it sends through
 * these ports and this ledger); messaging imports nothing of e-mail.
 */
export { formatMailbox, normalizePhoneNumber, normalizeSmsSender, parseMailbox } from './addresses';
export { DeliveryError } from '../../platform/ports/delivery-error.port';
export type { EmailSendResult, EmailTransport, Mailbox, SmsGateway } from '../../platform/ports/messaging.port';
export { OutboundMessage } from './outbound-message.entity';
export {
  activityCreatedRow,
  checkIdempotencyKey,
  checkLinks,
  claimActivityRow,
  claimOutbound,
  DEFAULT_STALE_CLAIM_MS,
  findSent,
  MESSAGE_SOURCES,
  outboundClaimRow,
  recordFailure,
  recordSent,
  type AlsoStatement,
  type ClaimRow,
  type MessageLinks,
  type MessageSource,
  type OutboundRow,
} from './outbound.service';
export {
  hasCaps,
  MailboxCapReached,
  MAX_MAILBOX_CAP,
  releaseMailboxQuota,
  takeMailboxQuota,
  type MailboxCaps,
} from './send-quota';
export { EMAIL_NOT_CONFIGURED, smtpSettings } from './settings';
export { smsGatewayFromConfig } from './sms-gateway';
export { SmsTemplate } from './sms-message.entity';
export { renderStoredSmsTemplate } from './sms-templates.service';
export { createSmsScheduler } from './sms-client';
export type { SmsSchedulerPort } from './sms-workflow-ids';
export { sendSms } from './sms.service';
