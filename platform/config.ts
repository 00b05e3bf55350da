import { niceEnv } from './process-priority';

/**
 * The sections modules own: each is a module's `settings` (modules/<m>/<m>.module.ts), and the module's settings.ts
 * adds its field here by declaration merging (`declare module '../../platform/config' { interface ModuleSettings {
 * files: FileEnv } }`), so that platform imports no module. `loadConfig` (app/config.ts) loads them from MODULES;
 * tsc fails there when a section declared here is loaded by no module.
 */
export interface ModuleSettings {}

/** Process configuration from the environment, read once; every variable is listed in the README. */
export interface AppConfig extends PlatformConfig, ModuleSettings {}

/** The sections platform reads itself (`loadPlatformConfig`). */
export interface PlatformConfig {
  port: number;
  publicBaseUrl: string;
  databaseUrl: string;
  meiliUrl: string;
  meiliMasterKey: string | undefined;
  /** Prefix of every Meilisearch index uid (`<prefix><type>`): lets deployments and test runs share a server. */
  meiliIndexPrefix: string;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  /**
   * The task queue of the backlog lane (TEMPORAL_BACKLOG_TASK_QUEUE, default `<TEMPORAL_TASK_QUEUE>-backlog`; `off`:
   * none): runs a workspace queued beyond its cap on runs in flight start there, served by the backlog worker
   * (WORKER_ROLE=backlog, a lower CPU priority), so one workspace's burst leaves the main worker to the others. ''
   * when off or equal to the main queue. docs/automations.md "Fair sharing between workspaces".
   */
  temporalBacklogTaskQueue: string;
  /**
   * Worker only (WORKER_ROLE): `all` (default) polls the main and the backlog task queues and runs the outbox, the
   * starter and the housekeeping, and sends no run to the backlog lane (one process does everything); `main` the
   * same but sends the queued runs of a workspace with a backlog to the backlog lane, which `backlog` workers serve
   * (they poll only that queue and run nothing else). `npm start` runs one `main` and one `backlog` worker.
   */
  workerRole: WorkerRole;
  /**
   * How long an API call waits on the workflow engine (start, update, signal, query) before it
   * answers 503 `unavailable` (ENGINE_DEADLINE_MS, default 3000, at least 500).
   */
  engineDeadlineMs: number;
  /**
   * Workflow runs kept in the worker's cache (TEMPORAL_MAX_CACHED_WORKFLOWS, default 200, ~0.4 MB of RSS each): bounds
   * memory with many parked enrollments (README "Worker memory").
   */
  temporalMaxCachedWorkflows: number;
  /**
   * How long a workflow task waits on the sticky queue of the worker that has the run cached before any worker may
   * take it (TEMPORAL_STICKY_TIMEOUT_MS, default 1000; the SDK's is 10 s). When that worker died, every timer of its
   * cached runs fires this much late (plus a replay): the soak measured 10 s with the SDK's, 2.07–2.26 s with 2000.
   * A busy live worker that misses it costs a replay only.
   */
  temporalStickyTimeoutMs: number;
  /**
   * Activities (and local activities) one worker runs at once (TEMPORAL_MAX_CONCURRENT_ACTIVITIES,
   * default 32; the SDK's is 100): beyond a few times the DB pool they only wait for a connection
   * while holding their memory, which V8 keeps after the burst (README "Worker memory").
   */
  temporalMaxConcurrentActivities: number;
  /**
   * Workflow tasks one worker runs at once (TEMPORAL_MAX_CONCURRENT_WORKFLOW_TASKS, default 40 as the SDK's). Tasks
   * beyond the worker's slots wait in the server's task queue, where fairness keys share them between workspaces.
   */
  temporalMaxConcurrentWorkflowTasks: number;
  rateLimitPerMinute: number;
  /** Back-pressure of the durable intake: queued (not yet started) runs per workspace before 429. */
  intakeMaxQueuedPerWorkspace: number;
  /**
   * Fair sharing of the automation engine between workspaces (AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE, default 8;
   * 0 = no cap): runs of one workspace started within the last automationInFlightWindowS and not finished. Record
   * events beyond it queue their runs (status `queued`) for the worker's starter, which starts them as runs finish.
   */
  automationMaxInFlightPerWorkspace: number;
  /**
   * AUTOMATION_MAX_IN_FLIGHT_BACKLOG (default 16; 0 or at most the cap above = the cap above): runs in flight per
   * workspace while its queued runs go to the backlog lane (a worker polls TEMPORAL_BACKLOG_TASK_QUEUE). The backlog
   * worker runs them apart from the main worker, so a burst may keep more of them in flight there than the main
   * worker's cap allows without holding back other workspaces' runs.
   */
  automationMaxInFlightBacklog: number;
  /** AUTOMATION_IN_FLIGHT_WINDOW_S (default 60): a run started longer ago (a long delay, slow step) stops counting. */
  automationInFlightWindowS: number;
  rateLimitPerDay: number;
  /** Failed authentications (invalid key) per client address and minute, per API process; 0 = off. */
  authFailuresPerMinute: number;
  /** How long an API process reuses a key lookup (KEY_CACHE_TTL_MS, default 10 s; 0 = off); emptied by NOTIFY. */
  keyCacheTtlMs: number;
  /**
   * Connections of the API's lean pool (DB_LEAN_POOL_MAX, default 5; 0 = none): the key count and lean reads of every
   * request, next to the ORM's DB_POOL_MAX (domain/orm/lean.ts attachLeanPool).
   */
  dbLeanPoolMax: number;
  /**
   * Worker only (WORKER_NICE, default 10, 0-19; 0 = unchanged): the worker process lowers its CPU priority so that,
   * on a machine it shares with the API, answering requests comes before running the engine's backlog ("accept at
   * wire speed, run at engine speed"). Alone on its machine it changes nothing.
   */
  workerNice: number;
  bodyLimitBytes: number;
  /**
   * Test runs (CRM_CONTRACT_CHECK=1, set by `npm test`): every answer is checked against the
   * documented response of its route and status; a mismatch becomes a 500 and a line in
   * CRM_CONTRACT_VIOLATIONS (the test command fails on it).
   */
  contractCheck?: { violationsFile?: string };
  logLevel: string;
  /** Hosts (or IPs) outbound HTTP may reach even when they resolve to private addresses. */
  outboundAllowHosts: string[];
  /** Outgoing e-mail (SMTP_*, MAIL_FROM); checked when the transport is built (modules/messaging/settings.ts). */
  mail: MailEnv;
  /** SMS gateway (SMS_*); checked when the gateway is built. */
  sms: SmsEnv;
  /** OpenAI-compatible chat completions (AI_*); checked when the provider is built. */
  ai: AiEnv;
  /**
   * Test runs only (CRM_TEST=1 with SEQUENCE_WAIT_SCALE): sequence waits and pauses last this fraction; 1 everywhere
   * else.
   */
  sequenceWaitScale: number;
  /**
   * Test runs only (CRM_TEST=1 with SEQUENCE_STEP_TIMEOUT_MS): how long one step attempt may take before it is retried;
   * absent = 2 minutes.
   */
  sequenceStepTimeoutMs?: number;
  /**
   * Test runs only (CRM_TEST=1 with BOOKING_TIME_SCALE): booking approval deadlines and reminders last this fraction; 1
   * everywhere else.
   */
  bookingTimeScale: number;
  /** CRM_SECRETS_KEY: AES-256-GCM key of credentials stored at rest (domain/shared/secret-box.ts). */
  secretsKey?: string;
  /** Temporal payload encryption and codec server (TEMPORAL_PAYLOAD_KEYS, TEMPORAL_CODEC_*); see temporal/codec.ts. */
  temporalCodec: TemporalCodecEnv;
  /**
   * Bulk e-mail (EMAIL_BULK_*): sends per second per mailbox and process (0 = unpaced), sends in flight per batch,
   * recipients per activity.
   */
  emailBulk: { perAccountPerSecond: number; concurrency: number; batchSize: number };
  /**
   * EID_PROVIDER_URL: national e-ID signing provider for contracts with signatureLevel eid (modules/contracts/eid.ts).
   */
  eidProviderUrl?: string;
  /** Test runs only (CRM_TEST=1 with CONTRACT_REMINDER_INTERVAL_MS): replaces the contract reminder interval. */
  contractReminderIntervalMs?: number;
  /** Seconds between IMAP polls of the connected mailboxes in each worker (IMAP_POLL_SECONDS, default 60; 0 = off). */
  imapPollSeconds: number;
}

/** Raw codec settings; the keys are parsed (and refused when malformed) where the codec is built. */
export interface TemporalCodecEnv {
  /** `kid1:base64key,kid2:base64key`: the last encrypts, all decrypt. Unset: payloads are plain JSON. */
  payloadKeys?: string;
  /** Bearer token of the codec server (`/codec/decode`, `/codec/encode`). Unset: the codec server answers 503. */
  authToken?: string;
  /**
   * Browser origins allowed to call the codec server (the Temporal Web UI): TEMPORAL_CODEC_CORS_ORIGINS, else
   * TEMPORAL_UI_URL.
   */
  corsOrigins: string[];
}

/** Raw mail settings: SMTP_URL, or SMTP_HOST/SMTP_PORT/SMTP_USER/SMTP_PASSWORD/SMTP_SECURE; MAIL_FROM. */
export interface MailEnv {
  smtpUrl?: string;
  smtpHost?: string;
  smtpPort?: number;
  smtpUser?: string;
  smtpPassword?: string;
  smtpSecure?: boolean;
  from?: string;
}

/** Raw SMS settings: SMS_GATEWAY_URL, SMS_GATEWAY_TOKEN, SMS_DEFAULT_FROM, SMS_DEFAULT_COUNTRY_CODE. */
export interface SmsEnv {
  gatewayUrl?: string;
  gatewayToken?: string;
  defaultFrom?: string;
  defaultCountryCode?: string;
}

/** Raw AI settings: AI_BASE_URL, AI_API_KEY, AI_MODEL, AI_TIMEOUT_MS (default 60 s). */
export interface AiEnv {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  timeoutMs: number;
}

/** A non-negative integer setting (`fallback` when unset); a value below `min` is raised to `min`. */
function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return Math.max(min, fallback);
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return Math.max(min, value);
}

/** MEILI_INDEX_PREFIX (default crm_), validated: it becomes part of every index uid. */
export function indexPrefixEnv(env: NodeJS.ProcessEnv): string {
  const prefix = env.MEILI_INDEX_PREFIX ?? 'crm_';
  if (!/^[A-Za-z0-9_-]{0,100}$/.test(prefix))
    throw new Error(`MEILI_INDEX_PREFIX may only contain letters, digits, _ and -, got "${prefix}"`);
  return prefix;
}

const optEnv = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

function boolEnv(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = optEnv(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}

/** Platform's part of the configuration; the whole of it, with the modules' sections, is app/config.ts `loadConfig`. */
export const WORKER_ROLES = ['all', 'main', 'backlog'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

function workerRoleEnv(env: NodeJS.ProcessEnv): WorkerRole {
  const raw = env.WORKER_ROLE?.trim() || 'all';
  if (!(WORKER_ROLES as readonly string[]).includes(raw))
    throw new Error(`WORKER_ROLE must be one of ${WORKER_ROLES.join(', ')}, got "${raw}"`);
  return raw as WorkerRole;
}

/** The backlog lane's task queue of this environment; '' when off (see PlatformConfig.temporalBacklogTaskQueue). */
export function backlogQueueEnv(env: NodeJS.ProcessEnv): string {
  const main = env.TEMPORAL_TASK_QUEUE ?? 'crm';
  const raw = env.TEMPORAL_BACKLOG_TASK_QUEUE?.trim();
  if (raw === 'off') return '';
  const queue = raw || `${main}-backlog`;
  return queue === main ? '' : queue;
}

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const port = intEnv(env, 'PORT', 3000);
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set (npm start provides it; see README "Environment")');
  return {
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    meiliUrl: env.MEILI_URL ?? 'http://127.0.0.1:7700',
    meiliMasterKey: env.MEILI_MASTER_KEY || undefined,
    meiliIndexPrefix: indexPrefixEnv(env),
    temporalAddress: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    temporalNamespace: env.TEMPORAL_NAMESPACE ?? 'default',
    temporalTaskQueue: env.TEMPORAL_TASK_QUEUE ?? 'crm',
    temporalBacklogTaskQueue: backlogQueueEnv(env),
    workerRole: workerRoleEnv(env),
    engineDeadlineMs: intEnv(env, 'ENGINE_DEADLINE_MS', 3000, 500),
    temporalMaxCachedWorkflows: intEnv(env, 'TEMPORAL_MAX_CACHED_WORKFLOWS', 200),
    temporalStickyTimeoutMs: intEnv(env, 'TEMPORAL_STICKY_TIMEOUT_MS', 1000, 200),
    temporalMaxConcurrentActivities: intEnv(env, 'TEMPORAL_MAX_CONCURRENT_ACTIVITIES', 32, 1),
    temporalMaxConcurrentWorkflowTasks: intEnv(env, 'TEMPORAL_MAX_CONCURRENT_WORKFLOW_TASKS', 40, 2),
    rateLimitPerMinute: intEnv(env, 'RATE_LIMIT_PER_MINUTE', 120),
    rateLimitPerDay: intEnv(env, 'RATE_LIMIT_PER_DAY', 50_000),
    intakeMaxQueuedPerWorkspace: intEnv(env, 'INTAKE_MAX_QUEUED_PER_WORKSPACE', 10_000, 1),
    automationMaxInFlightPerWorkspace: intEnv(env, 'AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE', 8),
    automationMaxInFlightBacklog: intEnv(env, 'AUTOMATION_MAX_IN_FLIGHT_BACKLOG', 16),
    automationInFlightWindowS: intEnv(env, 'AUTOMATION_IN_FLIGHT_WINDOW_S', 60, 1),
    authFailuresPerMinute: intEnv(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 30),
    keyCacheTtlMs: intEnv(env, 'KEY_CACHE_TTL_MS', 10_000),
    dbLeanPoolMax: intEnv(env, 'DB_LEAN_POOL_MAX', 5),
    workerNice: niceEnv(env, 'WORKER_NICE', 10),
    bodyLimitBytes: intEnv(env, 'BODY_LIMIT_BYTES', 4 * 1024 * 1024),
    contractCheck:
      env.CRM_CONTRACT_CHECK === '1' ? { violationsFile: env.CRM_CONTRACT_VIOLATIONS || undefined } : undefined,
    logLevel: env.LOG_LEVEL ?? (env.CRM_TEST ? 'warn' : 'info'),
    outboundAllowHosts: (env.OUTBOUND_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    mail: {
      smtpUrl: optEnv(env, 'SMTP_URL'),
      smtpHost: optEnv(env, 'SMTP_HOST'),
      smtpPort: env.SMTP_PORT?.trim() ? intEnv(env, 'SMTP_PORT', 0) : undefined,
      smtpUser: optEnv(env, 'SMTP_USER'),
      smtpPassword: env.SMTP_PASSWORD || undefined,
      smtpSecure: boolEnv(env, 'SMTP_SECURE'),
      from: optEnv(env, 'MAIL_FROM'),
    },
    sms: {
      gatewayUrl: optEnv(env, 'SMS_GATEWAY_URL'),
      gatewayToken: optEnv(env, 'SMS_GATEWAY_TOKEN'),
      defaultFrom: optEnv(env, 'SMS_DEFAULT_FROM'),
      defaultCountryCode: optEnv(env, 'SMS_DEFAULT_COUNTRY_CODE'),
    },
    ai: {
      baseUrl: optEnv(env, 'AI_BASE_URL'),
      apiKey: optEnv(env, 'AI_API_KEY'),
      model: optEnv(env, 'AI_MODEL'),
      timeoutMs: intEnv(env, 'AI_TIMEOUT_MS', 60_000),
    },
    sequenceWaitScale: env.CRM_TEST && Number(env.SEQUENCE_WAIT_SCALE) > 0 ? Number(env.SEQUENCE_WAIT_SCALE) : 1,
    sequenceStepTimeoutMs:
      env.CRM_TEST && Number(env.SEQUENCE_STEP_TIMEOUT_MS) > 0 ? Number(env.SEQUENCE_STEP_TIMEOUT_MS) : undefined,
    bookingTimeScale: env.CRM_TEST && Number(env.BOOKING_TIME_SCALE) > 0 ? Number(env.BOOKING_TIME_SCALE) : 1,
    secretsKey: optEnv(env, 'CRM_SECRETS_KEY'),
    temporalCodec: {
      payloadKeys: optEnv(env, 'TEMPORAL_PAYLOAD_KEYS'),
      authToken: optEnv(env, 'TEMPORAL_CODEC_AUTH_TOKEN'),
      corsOrigins: (optEnv(env, 'TEMPORAL_CODEC_CORS_ORIGINS') ?? optEnv(env, 'TEMPORAL_UI_URL') ?? '')
        .split(',')
        .map((o) => o.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    },
    emailBulk: {
      perAccountPerSecond: intEnv(env, 'EMAIL_BULK_PER_ACCOUNT_PER_SECOND', 20),
      concurrency: intEnv(env, 'EMAIL_BULK_CONCURRENCY', 30, 1),
      batchSize: intEnv(env, 'EMAIL_BULK_BATCH_SIZE', 500, 1),
    },
    eidProviderUrl: optEnv(env, 'EID_PROVIDER_URL'),
    contractReminderIntervalMs:
      env.CRM_TEST && Number(env.CONTRACT_REMINDER_INTERVAL_MS) > 0
        ? Number(env.CONTRACT_REMINDER_INTERVAL_MS)
        : undefined,
    imapPollSeconds: intEnv(env, 'IMAP_POLL_SECONDS', 60),
  };
}
