/**
 * The webhook trigger's secret is write-only, like every secret of the product: reads show a
 * mask (`****` + its last 4 characters, only `****` when it is shorter than 12), and a write that
 * sends the mask of the stored secret back unchanged keeps the stored secret. Sending another
 * value replaces it; sending null or leaving `secret` out removes it.
 */
import type { GraphNode } from './topology';

const MASK = '****';

export function maskSecret(secret: string): string {
  return secret.length >= 12 ? `${MASK}${secret.slice(-4)}` : MASK;
}

const webhookTrigger = (n: GraphNode): boolean => n.type === 'trigger' && n.data?.triggerType === 'webhook';

function secretOf(n: GraphNode): string | null {
  const s = (n.data?.config as Record<string, unknown> | undefined)?.secret;
  return typeof s === 'string' && s !== '' ? s : null;
}

/** The nodes as clients see them: the webhook secret masked (the stored nodes are not touched). */
export function maskNodeSecrets<N extends GraphNode>(nodes: readonly N[]): N[] {
  return nodes.map((n) => {
    const secret = webhookTrigger(n) ? secretOf(n) : null;
    if (secret === null) return n;
    return { ...n, data: { ...n.data, config: { ...(n.data?.config as Record<string, unknown>), secret: maskSecret(secret) } } };
  });
}

/** Incoming nodes with a masked secret that matches the stored one get the stored secret back. */
export function restoreMaskedSecrets<N extends GraphNode>(incoming: N[], stored: readonly GraphNode[]): N[] {
  const storedSecret = stored.filter(webhookTrigger).map(secretOf).find((s) => s !== null) ?? null;
  if (storedSecret === null) return incoming;
  return incoming.map((n) => {
    if (!webhookTrigger(n) || secretOf(n) !== maskSecret(storedSecret)) return n;
    return { ...n, data: { ...n.data, config: { ...(n.data?.config as Record<string, unknown>), secret: storedSecret } } };
  });
}
