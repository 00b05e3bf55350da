/**
 * Reading `a.b.0.c` paths out of the execution context. Only own properties are read (never
 * `constructor`, `__proto__` or a prototype getter), and nothing is ever evaluated.
 */

/** `items[0].name` and `items.0.name` both become ['items', '0', 'name']. */
export function splitPath(path: string): string[] {
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const own = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * One step down. Arrays take an index, `length`, or a name: custom fields stored as
 * `[{ name, value }]` (or `key`/`fieldKey`) answer `customFields.budget` with that item's value.
 */
function step(current: unknown, seg: string): unknown {
  if (current === null || current === undefined) return undefined;
  if (Array.isArray(current)) {
    if (/^\d+$/.test(seg)) return current[Number(seg)];
    if (seg === 'length') return current.length;
    const item = current.find(
      (el): el is Record<string, unknown> =>
        typeof el === 'object' && el !== null && (el.name === seg || el.key === seg || el.fieldKey === seg),
    );
    return item ? item.value : undefined;
  }
  if (typeof current === 'string') return seg === 'length' ? current.length : undefined;
  if (typeof current !== 'object' || current instanceof Date) return undefined;
  return own(current, seg) ? (current as Record<string, unknown>)[seg] : undefined;
}

export function getPath(root: unknown, segments: readonly string[]): unknown {
  let current = root;
  for (const seg of segments) {
    current = step(current, seg);
    if (current === undefined) return undefined;
  }
  return current;
}
