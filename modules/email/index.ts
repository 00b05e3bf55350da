/**
 * The e-mail module's public surface: what code outside modules/email may import (dependency-cruiser
 * `module-public-surface`): sending an e-mail (sendEmail with its deps, the sender account), rendering stored
 * templates, the entities other features read, the IMAP poll and account commands the worker and the CLI load
 * on first use, and createMessagingDeps (the e-mail transports, mailbox pools and tracking key with messaging's
 * SMS gateway, built once per process). Declaration files (`*.module.ts`,
 * `*.resource.ts`, `*.events.ts`, `*.messages.ts`, `*.workflow.ts`) are read by the registries directly, the IMAP
 * port (`imap.port.ts`) by adapters/; tests and benches may reach inside. E-mail builds on messaging (its ports,
 * outbound ledger and addresses); messaging imports nothing of e-mail.
 */
export { EmailAccount } from './email-account.entity';
export { testEmailAccount } from './account-transports';
export {
  accountForSend,
  addEmailAccount,
  removeEmailAccount,
  setEmailAccountCaps,
  type EmailAccountInput,
} from './email-accounts.service';
export { EmailTemplate } from './email-template.entity';
export { Email } from './email.entity';
export { sendEmail, type EmailDeps } from './email.service';
export { pollAllImapAccounts } from './imap-poll';
export { inboundCtx } from './inbound.service';
export { createMessagingDeps, type MessagingDeps } from './messaging-deps';
export { renderEmailParts, renderStoredTemplate } from './template-render';
export { NO_TRACK } from './tracking';
