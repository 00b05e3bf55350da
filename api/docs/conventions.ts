import { ROLES, SCOPES } from '../../platform/context';
import { MAX_INPUT_DEPTH } from '../../platform/http/input-guard';

export const API_TITLE = 'CRM Workspace API';
export const API_VERSION = '1.0';
export const BASE_PATH = '/api/v1';

/** The configured limits the reference reports (they come from env, so docs never drift from them). */
export interface DocsLimits {
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
  bodyLimitBytes: number;
}

export const DEFAULT_LIMITS: DocsLimits = {
  rateLimitPerMinute: 120,
  rateLimitPerDay: 50_000,
  bodyLimitBytes: 4 * 1024 * 1024,
};

export interface ErrorRow {
  status: number;
  codes: string[];
  meaning: string;
}

/** Every status the API answers with on failure; the unit test checks it covers STATUS_BY_CODE. */
export const ERROR_TABLE: readonly ErrorRow[] = [
  {
    status: 400,
    codes: ['validation'],
    meaning:
      'invalid parameters, missing required fields, unknown query parameters on strict endpoints, malformed JSON, a malformed Idempotency-Key; `details[]` lists { path, error }',
  },
  { status: 401, codes: ['unauthenticated'], meaning: 'missing, malformed or invalid API key' },
  { status: 403, codes: ['forbidden'], meaning: 'key revoked, workspace suspended, or missing scope/role' },
  {
    status: 404,
    codes: ['not_found'],
    meaning: 'no such route, or the record does not exist or belongs to another workspace; a malformed id is also 404',
  },
  {
    status: 405,
    codes: ['http', 'method_not_allowed'],
    meaning: 'the path exists but not for this method (the Temporal codec server: method_not_allowed)',
  },
  {
    status: 409,
    codes: ['conflict', 'invalid_state', 'idempotency_in_progress'],
    meaning:
      'duplicate unique value, the record is in a state that does not allow the operation, or a request with the same Idempotency-Key is still running (retry after `Retry-After`)',
  },
  {
    status: 410,
    codes: ['gone', 'expired'],
    meaning:
      'a public capability link that no longer works: a contract signing link whose envelope was voided, expired, declined or completed (gone), or a signed file URL past its expiry (expired)',
  },
  { status: 413, codes: ['too_large'], meaning: 'request body or upload exceeds the size limit' },
  {
    status: 415,
    codes: ['http'],
    meaning: 'the body has a Content-Type or Content-Encoding the endpoint does not take (send application/json)',
  },
  {
    status: 422,
    codes: ['idempotency_mismatch'],
    meaning: 'the Idempotency-Key was already used for a different request (method, path, query or body)',
  },
  {
    status: 429,
    codes: ['rate_limited'],
    meaning:
      'rate limit exceeded (per key, or failed authentications per client address); wait `Retry-After` seconds and back off exponentially',
  },
  {
    status: 500,
    codes: ['internal'],
    meaning: 'unexpected server error; the body carries a requestId to quote to support',
  },
  { status: 502, codes: ['upstream_failed'], meaning: 'an external provider (SMTP, SMS gateway, storage, …) failed' },
  {
    status: 503,
    codes: ['not_configured', 'unavailable'],
    meaning:
      '`not_configured`: the feature needs a provider that is not configured (the message says what); `unavailable`: a dependency (database, workflow engine) is down for now: retry after `Retry-After` seconds',
  },
];

export const ERROR_BODY = {
  error: 'string, always present: human-readable message',
  code: 'string, optional: machine-readable code (see errors table)',
  details: 'optional: e.g. [{ path, error }] for validation failures',
};

export const IDEMPOTENCY_DOC = {
  header:
    'Idempotency-Key: <1-255 printable ASCII characters> on any authenticated POST (another value is 400); a random UUID per logical operation is a good key',
  scope: 'per workspace (keys of different workspaces never collide); kept 24 hours from the first request',
  replay:
    'a retry with the same key, method, path, query and body (JSON compared after sorting keys) answers the stored status, body and Content-Type/Location without running again, with header `Idempotent-Replayed: true`',
  stored:
    'successes and 4xx answers are stored; a 5xx releases the key so the retry runs again; bodies over 1 MB are not stored (the key is released)',
  mismatch: 'the same key with a different request: 422 `idempotency_mismatch`',
  concurrent:
    'a request while the first one with the key is still running: 409 `idempotency_in_progress` with Retry-After: 1 (exactly one of them writes)',
  timeouts:
    'the server finishes a request whose client went away and stores the answer, so a retry after a client timeout replays it instead of writing twice',
  crash: 'a key whose request died with its process (no answer stored) can be used again after 5 minutes',
  other:
    'PUT and DELETE are idempotent by nature and ignore the header; the automation webhook endpoint has its own per-delivery Idempotency-Key',
} as const;

export const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit-Minute',
  'X-RateLimit-Remaining-Minute',
  'X-RateLimit-Limit-Day',
  'X-RateLimit-Remaining-Day',
] as const;

export const RATE_LIMIT_HEADER_DOCS: Record<(typeof RATE_LIMIT_HEADERS)[number], string> = {
  'X-RateLimit-Limit-Minute': 'requests this key may make per minute',
  'X-RateLimit-Remaining-Minute': 'requests left in the current minute',
  'X-RateLimit-Limit-Day': 'requests this key may make per day',
  'X-RateLimit-Remaining-Day': 'requests left today',
};

export function authenticationDoc() {
  return {
    schemes: [
      { type: 'bearer', header: 'Authorization: Bearer <API_KEY>' },
      {
        type: 'apiKey',
        in: 'query',
        name: 'api_key',
        note: 'for tools that cannot set headers; prefer the header, since URLs end up in logs',
      },
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
      temporalPayloads:
        'Workflow payloads in Temporal are AES-256-GCM encrypted (TEMPORAL_PAYLOAD_KEYS) and never hold secrets.',
      codecServer:
        'POST /codec/decode and /codec/encode (Temporal codec server protocol, JSON { payloads }), outside /api/v1, authenticated by `Authorization: Bearer <TEMPORAL_CODEC_AUTH_TOKEN>` or /codec/<token>/…; for the Temporal Web UI and `temporal --codec-endpoint`.',
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
      maxLimitByResource: {
        companies: 500,
        people: 500,
        leads: 500,
        tags: 500,
        'lead-scoring/rules': 200,
        'lead-routing/rules': 100,
      },
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
    unknownFields:
      'unknown body fields are ignored (never assigned: mass-assignment safe); strict list endpoints refuse unknown query parameters with 400',
    idempotency: IDEMPOTENCY_DOC,
    ids: { field: '_id', format: '24 lowercase hex characters, time-ordered (object id)', pattern: '^[0-9a-f]{24}$' },
    dates: 'ISO 8601 strings',
    bodies: 'JSON with Content-Type: application/json unless an endpoint says it also accepts form-urlencoded or text',
    input: {
      characters:
        'NUL (U+0000) and lone UTF-16 surrogates (e.g. an unpaired \\ud800), which the database cannot store, are refused wherever they appear: ' +
        'in a body (values and object keys, at any depth; JSON, form and text), the query string or a header → 400 naming the place ' +
        '(`body.items.0.title`, `query.q`, `header.<name>`); in a path parameter → 404 like a malformed id. Nothing is stripped or replaced.',
      nesting: `a body nested deeper than ${MAX_INPUT_DEPTH} levels (objects or arrays) → 400`,
      compression:
        'Content-Encoding gzip, deflate or br is decoded; a body that is not valid for its declared encoding → 400; any other encoding → 415; the size limit applies to the decoded body (413)',
    },
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
