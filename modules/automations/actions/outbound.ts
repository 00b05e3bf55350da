/**
 * Actions that leave the CRM: http_request and send_webhook through the guarded outbound client,
 * send_email and send_sms through the messaging module (which records them on the timeline and
 * sends each idempotency key at most once).
 */
import { DomainError } from '../../../platform/errors';
import { renderStoredTemplate, sendEmail } from '../../email';
import { sendSms } from '../../messaging';
import { safeFetch } from '../../../platform/net/safe-fetch';
import { getPath, splitPath } from '../../../platform/shared/path.pure';
import { emailRecipients, messageLinks, phoneOf } from './recipients';
import { fail, type ActionEnv, type ActionHandler, type ActionResult } from './types';

/** Response data kept in the context and step log; larger bodies are cut (the rest is of no use to placeholders). */
const MAX_RESPONSE_CONTEXT_BYTES = 64 * 1024;
const HTTP_TIMEOUT_MS = 15_000;

function parseBody(buf: Buffer, contentType: string | undefined): unknown {
  const text = buf.toString('utf8');
  if (text.length > MAX_RESPONSE_CONTEXT_BYTES) return { truncated: true, bytes: buf.length };
  if (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

async function request(
  env: ActionEnv,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  mapping?: Record<string, string>,
): Promise<ActionResult> {
  const payload =
    body === undefined || body === null || method === 'GET'
      ? undefined
      : typeof body === 'string'
        ? body
        : JSON.stringify(body);
  const res = await safeFetch(url, {
    method,
    // Receivers can dedupe a retried step on this key (we never know whether a timed-out call arrived).
    headers: {
      'user-agent': 'crm-automations/1',
      'idempotency-key': env.idempotencyKey,
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: payload,
    allowHosts: env.deps.config.outboundAllowHosts,
    timeoutMs: HTTP_TIMEOUT_MS,
    maxBytes: 5 * 1024 * 1024,
  });
  const data = parseBody(res.body, res.headers['content-type']);
  const origin = new URL(url).origin;
  if (res.status >= 500 || res.status === 429 || res.status === 408)
    throw new DomainError('upstream_failed', `${method} ${origin} answered ${res.status}`);
  if (res.status >= 400) fail(`${method} ${origin} answered ${res.status}`);
  const response = { status: res.status, data, headers: res.headers };
  const mapped: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(mapping ?? {})) {
    const segs = splitPath(path);
    mapped[name] = getPath(response, segs) ?? (segs[0] === 'data' ? undefined : getPath(data, segs)) ?? null;
  }
  return {
    output: { status: res.status, data, ...(mapping ? { mapped } : {}) },
    contextPatch: { httpResponse: { status: res.status, data, ...mapped } },
  };
}

export const httpRequestAction: ActionHandler<{
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  responseMapping?: Record<string, string>;
}> = {
  kind: 'external',
  describe: (c) => `would send ${c.method} ${c.url}`,
  run: (env, c) => request(env, c.method, c.url, c.headers ?? {}, c.body, c.responseMapping),
};

export const sendWebhookAction: ActionHandler<{ url: string; payload?: unknown }> = {
  kind: 'external',
  describe: (c) => `would POST the payload to ${c.url}`,
  run: (env, c) => request(env, 'POST', c.url, {}, c.payload ?? {}),
};

interface EmailConfig {
  subject?: string;
  body?: string;
  templateId?: string;
  recipientField: string;
  recipientType: string;
  to?: string;
  senderAccountId?: string;
}

export const sendEmailAction: ActionHandler<EmailConfig> = {
  kind: 'external',
  describe: (c) =>
    `would e-mail ${c.templateId ? `template ${c.templateId}` : `"${c.subject ?? ''}"`} to ${c.recipientField === 'custom' ? c.to : `the ${c.recipientField} address`}${c.senderAccountId ? ` from account ${c.senderAccountId}` : ''}`,
  async run(env, c) {
    const to = emailRecipients(env.input.context, c.recipientField, c.recipientType, c.to);
    if (!to.length) fail(`send_email: no ${c.recipientField} e-mail address on the run's records`);
    const messaging = env.deps.messaging() ?? fail('send_email: the messaging module is not available');
    // A template is rendered against the run's records; a subject in the step overrides the template's.
    const content = c.templateId?.trim()
      ? await renderStoredTemplate(
          env.ctx,
          c.templateId.trim(),
          env.input.context,
          { subject: c.subject },
          'send_email: templateId',
        )
      : { subject: c.subject ?? '', html: c.body };
    const sent = await sendEmail(
      env.ctx,
      {
        to,
        subject: content.subject,
        html: content.html,
        text: 'text' in content ? content.text : undefined,
        links: messageLinks(env.input.context),
        idempotencyKey: env.idempotencyKey,
        source: 'automation',
        sourceRef: env.input.executionId,
        ...(c.senderAccountId?.trim()
          ? { accountId: c.senderAccountId.trim(), accountAccess: 'workspace' as const }
          : {}),
      },
      { transport: messaging.transport, accounts: messaging.accounts },
    );
    return {
      output: {
        to,
        emailId: sent.emailId,
        outboundMessageId: sent.outboundMessageId,
        messageId: sent.messageId,
        replayed: sent.replayed,
        ...(c.senderAccountId ? { accountId: c.senderAccountId } : {}),
      },
    };
  },
};

export const sendSmsAction: ActionHandler<{ message: string; phoneField: string; fromNumber?: string }> = {
  kind: 'external',
  describe: (c) => `would text ${c.message.length} characters to the ${c.phoneField} phone`,
  async run(env, c) {
    const to =
      phoneOf(env.input.context, c.phoneField) ??
      fail(`send_sms: no ${c.phoneField} phone number on the run's records`);
    const messaging = env.deps.messaging() ?? fail('send_sms: the messaging module is not available');
    const sent = await sendSms(
      env.ctx,
      {
        to,
        message: c.message,
        from: c.fromNumber || undefined,
        links: messageLinks(env.input.context),
        idempotencyKey: env.idempotencyKey,
        source: 'automation',
        sourceRef: env.input.executionId,
      },
      { gateway: messaging.gateway },
    );
    return {
      output: { to: sent.to, from: sent.from, outboundMessageId: sent.outboundMessageId, replayed: sent.replayed },
    };
  },
};
