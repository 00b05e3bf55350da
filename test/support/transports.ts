import type { DeliveryError } from '../../platform/ports/delivery-error.port';
import type { EmailMessage, EmailSendResult, EmailTransport } from '../../platform/ports/messaging.port';

/** A transport whose behaviour each test scripts (step n answers the n-th hand-over, the last one repeats). */
export function scripted(
  ...steps: Array<(m: EmailMessage) => Promise<EmailSendResult>>
): EmailTransport & { calls: EmailMessage[] } {
  const calls: EmailMessage[] = [];
  return {
    defaultFrom: 'crm@sender.example',
    calls,
    send(m) {
      calls.push(m);
      const step = steps[Math.min(calls.length, steps.length) - 1]!;
      return step(m);
    },
  };
}

/** A step the mail server accepts: every recipient accepted, the message's own Message-ID. */
export const ok = async (m: EmailMessage): Promise<EmailSendResult> => ({
  messageId: m.messageId ?? '<x@y>',
  accepted: m.to.map((t) => t.address),
  rejected: [],
});

/** A transport that fails every hand-over with `err`. */
export const failing = (err: DeliveryError): ReturnType<typeof scripted> =>
  scripted(async () => {
    throw err;
  });

/** Polls a synchronous condition every 10 ms until it holds (throws after `timeoutMs`). */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
