import { Client } from 'pg';
import type { Logger } from '../logger';

export const OUTBOX_CHANNEL = 'crm_outbox';
/**
 * Payload of a NOTIFY on OUTBOX_CHANNEL when parked deliveries became due at once (an operator's
 * retry, admin.service.ts): it wakes the dispatchers' parked-delivery runners instead of their claim.
 * New events notify with an empty payload (the outbox_event insert trigger).
 */
export const PARKED_DUE_PAYLOAD = 'parked';

export interface OutboxListener {
  /** Resolves after the first connection attempt, successful or not (retries continue in the background). */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly connected: boolean;
}

/**
 * A dedicated connection LISTENing on the outbox channel. It reconnects with backoff when the
 * connection drops and calls `onWake` after every (re)connect, since NOTIFYs sent while it was
 * down are lost.
 */
export function createOutboxListener(opts: {
  connectionString: string;
  applicationName: string;
  log: Logger;
  /** `payload`: the NOTIFY's; undefined after a (re)connect (whatever was sent meanwhile is lost). */
  onWake: (payload?: string) => void;
  /** Another channel than the outbox's (the starter's, intake/queue-signal.ts). */
  channel?: string;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}): OutboxListener {
  const minDelay = opts.reconnectMinMs ?? 250;
  const maxDelay = opts.reconnectMaxMs ?? 10_000;
  let client: Client | null = null;
  let connected = false;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | null = null;

  const dropped = (c: Client, err?: Error): void => {
    if (client !== c) return; // 'error' and 'end' both fire for one drop
    client = null;
    connected = false;
    c.end().catch(() => undefined);
    if (stopped) return;
    opts.log.warn({ err: err?.message }, 'outbox LISTEN connection lost; reconnecting');
    schedule();
  };

  const schedule = (): void => {
    const delay = Math.min(maxDelay, minDelay * 2 ** Math.min(failures, 10));
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delay);
    retryTimer.unref();
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new Client({
      connectionString: opts.connectionString,
      application_name: opts.applicationName,
      keepAlive: true,
    });
    client = c;
    c.on('notification', (n) => opts.onWake(n.payload ?? ''));
    c.on('error', (err) => dropped(c, err));
    c.on('end', () => dropped(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${opts.channel ?? OUTBOX_CHANNEL}`);
      if (client !== c) return;
      connected = true;
      if (failures > 0) opts.log.info('outbox LISTEN connection restored');
      failures = 0;
      opts.onWake();
    } catch (err) {
      failures += 1;
      if (client === c) {
        client = null;
        c.end().catch(() => undefined);
        if (!stopped) {
          opts.log.warn({ err: (err as Error).message, failures }, 'outbox LISTEN connect failed; retrying');
          schedule();
        }
      }
    }
  };

  return {
    get connected() {
      return connected;
    },
    start: connect,
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const c = client;
      client = null;
      connected = false;
      if (c) await c.end().catch(() => undefined);
    },
  };
}
