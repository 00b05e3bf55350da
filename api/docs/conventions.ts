import { ROLES, SCOPES } from '../../domain/context';

export const API_TITLE = 'CRM Workspace API';
export const API_VERSION = '1.0';
export const BASE_PATH = '/api/v1';

/** The configured limits the reference reports (they come from env, so docs never drift from them). */
export interface DocsLimits {
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
  bodyLimitBytes: number;
}

export const DEFAULT_LIMITS: DocsLimits = { rateLimitPerMinute: 120, rateLimitPerDay: 50_000, bodyLimitBytes: 4 * 1024 * 1024 };

export interface ErrorRow { status: number; codes: string[]; meaning: string }

/** Every status the API answers with on failure; the unit test checks it covers STATUS_BY_CODE. */
export const ERROR_TABLE: readonly ErrorRow[] = [
  { status: 400, codes: ['validation'], meaning: 'invalid parameters, missing required fields, unknown query parameters on strict endpoints, malformed JSON; `details[]` lists { path, error }' },
  { status: 401, codes: ['unauthenticated'], meaning: 'missing, malformed or invalid API key' },
  { status: 403, codes: ['forbidden'], meaning: 'key revoked, workspace suspended, or missing scope/role' },
  { status: 404, codes: ['not_found'], meaning: 'no such route, or the record does not exist or belongs to another workspace; a malformed id is also 404' },
  { status: 405, codes: ['http'], meaning: 'the path exists but not for this method' },
  { status: 409, codes: ['conflict', 'invalid_state'], meaning: 'duplicate unique value, or the record is in a state that does not allow the operation' },
  { status: 413, codes: ['too_large'], meaning: 'request body or upload exceeds the size limit' },
  { status: 429, codes: ['rate_limited'], meaning: 'rate limit exceeded; wait `Retry-After` seconds and back off exponentially' },
  { status: 500, codes: ['internal'], meaning: 'unexpected server error; the body carries a requestId to quote to support' },
  { status: 502, codes: ['upstream_failed'], meaning: 'an external provider (SMTP, SMS gateway, storage, …) failed' },
  { status: 503, codes: ['not_configured'], meaning: 'the feature needs a provider that is not configured; the message says what to configure' },
];

export const ERROR_BODY = {
  error: 'string, always present: human-readable message',
  code: 'string, optional: machine-readable code (see errors table)',
  details: 'optional: e.g. [{ path, error }] for validation failures',
};

export const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit-Minute',
  'X-RateLimit-Remaining-Minute',
  'X-RateLimit-Limit-Day',
  'X-RateLimit-Remaining-Day',
] as const;

export function authenticationDoc() {
  return {
    schemes: [
      { type: 'bearer', header: 'Authorization: Bearer <API_KEY>' },
      { type: 'apiKey', in: 'query', name: 'api_key', note: 'for tools that cannot set headers; prefer the header, since URLs end up in logs' },
    ],
    keyPrefix: 'sb_',
    storage: 'only a SHA-256 hash of a key is stored; the full key is shown once at creation and cannot be recovered',
    workspace: 'Every request is bound to the workspace of its key; records of other workspaces answer 404',
    scopes: [...SCOPES],
    roles: [...ROLES],
    rules: [
      'Each endpoint lists the scopes it needs (`auth.scopes`) and the key roles allowed (`auth.roles`); an empty scope list means any valid key.',
      'A missing scope or role gives 403; a missing or invalid key gives 401.',
      'SMS is not included in `read`; import and export are not covered by `write`.',
      'Public endpoints (`auth.public: true`) need no credential; the automation webhook authenticates with header `x-webhook-secret`.',
      'Secrets are write-only: the webhook trigger secret and credential headers of http_request actions (Authorization, X-Api-Key, Cookie, …) read back as `****` + their last 4 characters; writing the mask back keeps the stored value.',
    ],
    operators: {
      temporalPayloads: 'Workflow payloads in Temporal are AES-256-GCM encrypted (TEMPORAL_PAYLOAD_KEYS) and never hold secrets.',
      codecServer: 'POST /codec/decode and /codec/encode (Temporal codec server protocol, JSON { payloads }), outside /api/v1, authenticated by `Authorization: Bearer <TEMPORAL_CODEC_AUTH_TOKEN>` or /codec/<token>/…; for the Temporal Web UI and `temporal --codec-endpoint`.',
    },
  };
}

export function conventionsDoc(limits: DocsLimits = DEFAULT_LIMITS) {
  return {
    envelopes: {
      single: '{ data }',
      list: '{ data: [...], page, limit, total } (deals and activities also return view)',
      create: '201 { data } (may be { data: { _id } })',
      updateOrDelete: '{ data } or { ok: true }',
      error: '{ error, code?, details? }',
    },
    pagination: {
      page: { default: 1, min: 1 },
      limit: { default: 20, min: 1, max: 100 },
      maxLimitByResource: { companies: 500, people: 500, leads: 500 },
      overMax: 'a limit above the maximum is refused with 400, not clamped',
    },
    errors: ERROR_TABLE.map((row) => ({ ...row })),
    errorBody: ERROR_BODY,
    rateLimits: {
      per: 'API key',
      perMinute: limits.rateLimitPerMinute,
      perDay: limits.rateLimitPerDay,
      headers: [...RATE_LIMIT_HEADERS],
      onExceeded: '429 with a Retry-After header (seconds); clients should back off exponentially',
    },
    bodyLimitBytes: limits.bodyLimitBytes,
    preview: {
      request: '`preview: true` in the JSON body or `?preview=true` on endpoints marked previewable',
      response: '{ data: { preview: true, current, proposed, diff } } and nothing is saved',
      diff: '{ <field>: { from, to } } for each field that would change',
      persist: 'repeat the call without preview to save',
    },
    unknownFields: 'unknown body fields are ignored (never assigned: mass-assignment safe); strict list endpoints refuse unknown query parameters with 400',
    ids: { field: '_id', format: '24 lowercase hex characters, time-ordered (object id)', pattern: '^[0-9a-f]{24}$' },
    dates: 'ISO 8601 strings',
    bodies: 'JSON with Content-Type: application/json unless an endpoint says it also accepts form-urlencoded or text',
  };
}

export function referenceHeader(limits: DocsLimits = DEFAULT_LIMITS) {
  return {
    title: API_TITLE,
    version: API_VERSION,
    basePath: BASE_PATH,
    authentication: authenticationDoc(),
    conventions: conventionsDoc(limits),
  };
}
