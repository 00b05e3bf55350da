/** Result of a write in preview mode: nothing is saved (spec: Preview mode). */
export interface PreviewResult {
  preview: true;
  current: Record<string, unknown> | null;
  proposed: Record<string, unknown>;
  diff: Record<string, { from: unknown; to: unknown }>;
}

const IGNORED = new Set(['updatedAt']);

export function diffRecords(
  current: Record<string, unknown> | null,
  proposed: Record<string, unknown>,
): PreviewResult['diff'] {
  const diff: PreviewResult['diff'] = {};
  const keys = new Set([...Object.keys(current ?? {}), ...Object.keys(proposed)]);
  for (const key of keys) {
    if (IGNORED.has(key)) continue;
    const from = current ? (current[key] ?? null) : null;
    const to = proposed[key] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) diff[key] = { from, to };
  }
  return diff;
}

export function previewOf(current: Record<string, unknown> | null, proposed: Record<string, unknown>): PreviewResult {
  return { preview: true, current, proposed, diff: diffRecords(current, proposed) };
}
