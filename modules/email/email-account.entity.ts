import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';

export type EmailAccountStatus = 'untested' | 'ok' | 'failing';

/**
 * A connected mailbox: SMTP for sending, optional IMAP for receiving. Passwords live only in
 * `secrets` (AES-256-GCM, domain/shared/secret-box.ts, bound to the account id) and are never
 * serialized. Visible to `userIds`, or to every user of the workspace when `shared`.
 */
export const EmailAccount = defineEntity({
  name: 'EmailAccount',
  tableName: 'email_account',
  uniques: [{ properties: ['workspaceId', 'emailAddress'] }],
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    emailAddress: p.string().length(254),
    displayName: p.string().length(200).nullable(),
    smtpHost: p.string().length(255),
    smtpPort: p.integer(),
    smtpSecure: p.boolean(),
    smtpUser: p.string().length(320).nullable(),
    imapHost: p.string().length(255).nullable(),
    imapPort: p.integer().nullable(),
    imapSecure: p.boolean().default(true),
    imapUser: p.string().length(320).nullable(),
    /** Sealed JSON `{ smtpPassword?, imapPassword? }`. */
    secrets: p.text().nullable(),
    /** SHA-256 (hex) of the inbound-webhook secret; the secret itself is shown once by the CLI. */
    inboundSecretHash: p.string().length(64),
    shared: p.boolean().default(false),
    userIds: p.array().default([]),
    status: p.string().length(20).$type<EmailAccountStatus>().default('untested'),
    lastTestedAt: p.datetime().nullable(),
    lastError: p.text().nullable(),
    /** IMAP polling position: UIDVALIDITY and the highest UID already imported. */
    imapUidValidity: p.string().length(40).nullable(),
    imapLastUid: p.integer().nullable(),
    /** Sending caps of the mailbox (every sender: sequences, bulk, single sends); null = none. */
    maxPerHour: p.integer().nullable(),
    maxPerDay: p.integer().nullable(),
  },
});
export type EmailAccount = InferEntity<typeof EmailAccount>;
