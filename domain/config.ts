/** Process configuration from the environment, read once; every variable is listed in the README. */
export interface AppConfig {
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
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
  bodyLimitBytes: number;
  logLevel: string;
  /** Hosts (or IPs) outbound HTTP may reach even when they resolve to private addresses. */
  outboundAllowHosts: string[];
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** MEILI_INDEX_PREFIX (default crm_), validated: it becomes part of every index uid. */
export function indexPrefixEnv(env: NodeJS.ProcessEnv): string {
  const prefix = env.MEILI_INDEX_PREFIX ?? 'crm_';
  if (!/^[A-Za-z0-9_-]{0,100}$/.test(prefix)) throw new Error(`MEILI_INDEX_PREFIX may only contain letters, digits, _ and -, got "${prefix}"`);
  return prefix;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
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
    rateLimitPerMinute: intEnv(env, 'RATE_LIMIT_PER_MINUTE', 120),
    rateLimitPerDay: intEnv(env, 'RATE_LIMIT_PER_DAY', 50_000),
    bodyLimitBytes: intEnv(env, 'BODY_LIMIT_BYTES', 4 * 1024 * 1024),
    logLevel: env.LOG_LEVEL ?? (env.CRM_TEST ? 'warn' : 'info'),
    outboundAllowHosts: (env.OUTBOUND_ALLOW_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
  };
}
