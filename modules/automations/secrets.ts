/**
 * Secrets of an automation graph: the webhook trigger's secret and the credential headers of
 * `http_request` actions (Authorization, X-Api-Key, Cookie, …). They are write-only, like every
 * secret of the product: reads show a mask (`****` + the last 4 characters, only `****` when the
 * value is shorter than 12), and a write that sends the mask of the stored value back unchanged
 * keeps the stored value. Sending another value replaces it; leaving it out removes it.
 *
 * They never enter Temporal either: a run's workflow input carries the graph with each secret
 * replaced by SECRET_REF, and the activity reads the real value from the execution row in
 * Postgres, which keeps the graph version the run started with (so an edit never changes it).
 */
import type { GraphNode } from './topology.pure';

const MASK = '****';

/** Stands for a secret in a workflow input; the activity loads the value (engine/secret-refs.ts). */
export const SECRET_REF = '[secret: kept in Postgres]';

export function maskSecret(secret: string): string {
  return secret.length >= 12 ? `${MASK}${secret.slice(-4)}` : MASK;
}

/** Header names that carry credentials (compared case-insensitively). */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie)$|auth|token|secret|passw|api[-_]?key|access[-_]?key|private[-_]?key|session|signature|credential|(^|[-_])key$/i;
const NOT_CREDENTIAL = /^idempotency-key$/i;

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADER.test(name) && !NOT_CREDENTIAL.test(name);
}

type Data = Record<string, unknown>;
type Replace = (value: string, where: { nodeId: string; header?: string }) => string | undefined;

const webhookTrigger = (n: GraphNode): boolean => n.type === 'trigger' && n.data?.triggerType === 'webhook';
const httpAction = (n: GraphNode): boolean => n.type === 'action' && n.data?.actionType === 'http_request';
const configOf = (n: GraphNode): Data | undefined => {
  const c = n.data?.config;
  return c && typeof c === 'object' && !Array.isArray(c) ? (c as Data) : undefined;
};

function secretOf(n: GraphNode): string | null {
  const s = configOf(n)?.secret;
  return typeof s === 'string' && s !== '' ? s : null;
}

/** Credential headers of a config object, with their values. */
function credentialHeaders(config: Data | undefined): [string, string][] {
  const h = config?.headers;
  if (!h || typeof h !== 'object' || Array.isArray(h)) return [];
  return Object.entries(h as Data).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && isCredentialHeader(e[0]),
  );
}

/** Headers of a config with each credential value passed through `replace` (undefined: unchanged). */
function mapHeaders(config: Data, nodeId: string, replace: Replace): Data {
  const creds = credentialHeaders(config);
  if (creds.length === 0) return config;
  const headers = { ...(config.headers as Data) };
  for (const [name, value] of creds) {
    const next = replace(value, { nodeId, header: name });
    if (next !== undefined) headers[name] = next;
  }
  return { ...config, headers };
}

/** Every secret of the nodes passed through `replace` (new node objects where something changed). */
function mapNodeSecrets<N extends GraphNode>(nodes: readonly N[], replace: Replace): N[] {
  return nodes.map((n) => {
    const config = configOf(n);
    if (!config) return n;
    if (webhookTrigger(n)) {
      const secret = secretOf(n);
      const next = secret === null ? undefined : replace(secret, { nodeId: n.id });
      return next === undefined ? n : { ...n, data: { ...n.data, config: { ...config, secret: next } } };
    }
    if (httpAction(n)) {
      const mapped = mapHeaders(config, n.id, replace);
      return mapped === config ? n : { ...n, data: { ...n.data, config: mapped } };
    }
    return n;
  });
}

/** The nodes as clients see them: every secret masked (the stored nodes are not touched). */
export function maskNodeSecrets<N extends GraphNode>(nodes: readonly N[]): N[] {
  return mapNodeSecrets(nodes, (v) => maskSecret(v));
}

/** The graph a workflow input carries: every secret replaced by SECRET_REF. */
export function redactNodeSecrets<N extends GraphNode>(nodes: readonly N[]): N[] {
  return mapNodeSecrets(nodes, () => SECRET_REF);
}

/** True when the node data (as received by an activity) holds a secret reference to resolve. */
export function hasSecretRefs(data: Data): boolean {
  const config = data.config && typeof data.config === 'object' ? (data.config as Data) : undefined;
  return config?.secret === SECRET_REF || credentialHeaders(config).some(([, v]) => v === SECRET_REF);
}

/** A resolved http_request config as the step log keeps it: credential headers masked. */
export function maskConfigSecrets(actionType: string | null, config: unknown): unknown {
  if (actionType !== 'http_request' || !config || typeof config !== 'object' || Array.isArray(config)) return config;
  return mapHeaders(config as Data, '', (v) => maskSecret(v));
}

/**
 * Incoming nodes whose secret is the mask of the stored one (same node id and header name, or the
 * webhook trigger) get the stored value back.
 */
export function restoreMaskedSecrets<N extends GraphNode>(incoming: N[], stored: readonly GraphNode[]): N[] {
  const storedTrigger =
    stored
      .filter(webhookTrigger)
      .map(secretOf)
      .find((s) => s !== null) ?? null;
  const storedHeaders = new Map<string, string>();
  for (const n of stored)
    if (httpAction(n))
      for (const [name, value] of credentialHeaders(configOf(n)))
        storedHeaders.set(`${n.id}\n${name.toLowerCase()}`, value);
  return mapNodeSecrets(incoming, (value, where) => {
    const old =
      where.header === undefined ? storedTrigger : storedHeaders.get(`${where.nodeId}\n${where.header.toLowerCase()}`);
    return old != null && value === maskSecret(old) ? old : undefined;
  });
}
