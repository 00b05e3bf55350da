import { Client } from 'pg';
import type { Logger } from '../../platform/logger';

/** Sent by the triggers on api_key and workspace (migration ..._api_key_notify) when a key's grant changes. */
export const KEY_CHANGED_CHANNEL = 'crm_api_key_changed';

/** What an entry must say so that a notification can name it. */
export interface KeyGrant {
  keyId: string;
  workspaceId: string;
}

export interface KeyCache<T extends KeyGrant> {
  /** The cached value for a key hash, or undefined (also whenever the LISTEN connection is not known good). */
  get(hash: string, now?: number): T | undefined;
  /** Counter bumped by every invalidation: read it before the lookup, pass it to set. */
  readonly generation: number;
  /** Stores a lookup's result unless an invalidation arrived since `generation` was read. */
  set(hash: string, value: T, generation: number, now?: number): void;
  /** True while the cache may answer (LISTEN connected and its heartbeat recent). */
  readonly usable: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface KeyCacheOptions {
  connectionString: string;
  log: Logger;
  /** Longest an entry is used (ms); 0 disables the cache. */
  ttlMs: number;
  /**
   * Heartbeat on the LISTEN connection (500 ms); the cache answers only within 5 of them (2.5 s) of
   * the last good one: a connection that hangs without closing stops the cache that soon.
   */
  heartbeatMs?: number;
  maxEntries?: number;
}

/**
 * In-process cache of API-key lookups. A NOTIFY of KEY_CHANGED_CHANNEL (revocation, role or scope
 * change, workspace suspension) drops the entries of the key or workspace it names. Fails closed: while the LISTEN
 * connection is down or its heartbeat is late the cache answers nothing, so every request looks the
 * key up in Postgres; a heartbeat that succeeds proves the notifications before it were delivered
 * (same connection, in order).
 */
export function createKeyCache<T extends KeyGrant>(opts: KeyCacheOptions): KeyCache<T> {
  const heartbeatMs = opts.heartbeatMs ?? 500;
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, { value: T; at: number }>();
  let generation = 0;
  let client: Client | null = null;
  let listening = false;
  let lastGoodAt = 0;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  let beat: NodeJS.Timeout | null = null;

  const invalidate = (): void => {
    generation += 1;
    entries.clear();
  };

  const notified = (payload: string | undefined): void => {
    const [kind, id] = (payload ?? '').split(':');
    if (!id || (kind !== 'key' && kind !== 'workspace')) return invalidate();
    generation += 1;
    for (const [hash, entry] of entries)
      if ((kind === 'key' ? entry.value.keyId : entry.value.workspaceId) === id) entries.delete(hash);
  };

  /** end() waits for the server; a hung connection never answers, so its socket is destroyed too. */
  const close = async (c: Client): Promise<void> => {
    const stream = (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    const timer = setTimeout(() => stream?.destroy(), 500);
    timer.unref();
    await c.end().catch(() => undefined);
    clearTimeout(timer);
  };

  const usable = (now: number): boolean => opts.ttlMs > 0 && listening && now - lastGoodAt < 5 * heartbeatMs;

  const dropped = (c: Client, err?: Error): void => {
    if (client !== c) return; // 'error' and 'end' both fire for one drop
    client = null;
    listening = false;
    invalidate();
    void close(c);
    if (stopped) return;
    opts.log.warn({ err: err?.message }, 'API-key cache: LISTEN connection lost; keys are looked up on every request');
    schedule();
  };

  const schedule = (): void => {
    const delay = Math.min(10_000, 250 * 2 ** Math.min(failures, 10));
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delay);
    retryTimer.unref();
  };

  let beatSince: number | undefined;
  const heartbeat = (c: Client): void => {
    if (client !== c || !listening) return;
    const sent = Date.now();
    if (beatSince !== undefined) {
      // One heartbeat at a time; one that hangs this long means the connection is gone.
      if (sent - beatSince > 10 * heartbeatMs) dropped(c, new Error('heartbeat timed out'));
      return;
    }
    beatSince = sent;
    c.query('select 1').then(
      () => {
        beatSince = undefined;
        if (client === c) lastGoodAt = sent;
      },
      (err: Error) => {
        beatSince = undefined;
        dropped(c, err);
      },
    );
  };

  const connect = async (): Promise<void> => {
    if (stopped || opts.ttlMs <= 0) return;
    const c = new Client({
      connectionString: opts.connectionString,
      application_name: 'crm-api-key-cache',
      keepAlive: true,
      connectionTimeoutMillis: 5000,
    });
    client = c;
    c.on('notification', (message) => notified(message.payload));
    c.on('error', (err) => dropped(c, err));
    c.on('end', () => dropped(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${KEY_CHANGED_CHANNEL}`);
      if (client !== c) return;
      // Changes made while nobody listened were missed: start empty.
      invalidate();
      listening = true;
      lastGoodAt = Date.now();
      failures = 0;
    } catch (err) {
      failures += 1;
      if (client === c) {
        client = null;
        void close(c);
        if (!stopped) {
          opts.log.warn({ err: (err as Error).message, failures }, 'API-key cache: LISTEN connect failed; retrying');
          schedule();
        }
      }
    }
  };

  return {
    get(hash, now = Date.now()) {
      if (!usable(now)) return undefined;
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (now - entry.at >= opts.ttlMs) {
        entries.delete(hash);
        return undefined;
      }
      return entry.value;
    },
    get generation() {
      return generation;
    },
    set(hash, value, seen, now = Date.now()) {
      if (seen !== generation || !usable(now)) return;
      if (entries.size >= maxEntries) entries.clear();
      entries.set(hash, { value, at: now });
    },
    get usable() {
      return usable(Date.now());
    },
    async start() {
      await connect();
      if (opts.ttlMs <= 0) return;
      beat = setInterval(() => {
        if (client) heartbeat(client);
      }, heartbeatMs);
      beat.unref();
    },
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (beat) clearInterval(beat);
      const c = client;
      client = null;
      listening = false;
      invalidate();
      if (c) await close(c);
    },
  };
}
