/** The ports the messaging services send through; adapters: adapters/smtp/, adapters/sms/. */

export interface Mailbox {
  address: string;
  name?: string;
}

export interface EmailMessage {
  from: Mailbox;
  to: Mailbox[];
  cc?: Mailbox[];
  bcc?: Mailbox[];
  replyTo?: Mailbox;
  subject: string;
  html?: string;
  text?: string;
  /** Message-ID header (with angle brackets); stable per outbound message so a re-send is recognisable downstream. */
  messageId?: string;
  /** Threading headers of a reply (angle-bracketed Message-IDs). */
  inReplyTo?: string;
  references?: string[];
  /** An iCalendar part (iTIP, e.g. METHOD:REPLY) sent as text/calendar beside the body. */
  calendar?: { method: string; content: string };
}

export interface EmailSendResult {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export interface EmailTransport {
  /** Sender used when a message names none (MAIL_FROM). */
  readonly defaultFrom?: string;
  /** Throws not_configured before anything is recorded when the transport cannot send at all. */
  assertConfigured?(): void;
  /** Throws DeliveryError when the message was refused or the outcome is unknown. */
  send(message: EmailMessage): Promise<EmailSendResult>;
}

export interface SmsMessage {
  /** E.164, e.g. +4512345678. */
  to: string;
  /** E.164 number or alphanumeric sender id (≤ 11 characters). */
  from: string;
  message: string;
  /** Stable per outbound message; sent as the Idempotency-Key header so the gateway can dedupe too. */
  reference?: string;
}

export interface SmsSendResult {
  /** The gateway's id for the message; null when its 2xx answer carried none. */
  providerMessageId: string | null;
  /** The gateway's status word (default "sent"). */
  status: string;
}

export interface SmsGateway {
  /** Sender used when a message names none (SMS_DEFAULT_FROM). */
  readonly defaultFrom?: string;
  /** Country calling code (digits) put before numbers written without one (SMS_DEFAULT_COUNTRY_CODE). */
  readonly defaultCountryCode?: string;
  assertConfigured?(): void;
  send(message: SmsMessage): Promise<SmsSendResult>;
}

/** The SMTP transport's settings (checked from the environment by settings.ts, or a mailbox row's). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (smtps, usually port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  password?: string;
  from: Mailbox;
}

/** The HTTP SMS gateway's settings (checked from the environment by settings.ts). */
export interface SmsSettings {
  url: string;
  token: string;
  defaultFrom?: string;
  defaultCountryCode?: string;
}
