// Automations and sequences are created inactive and switched on by a toggle route of their own: the test
// helpers that create them share these two calls and their checks.
import type { HttpClient } from './app';

/**
 * POSTs `body` to `path` (a definition collection: /api/v1/automations, /api/v1/sequences) and, unless
 * active: false, switches the new definition on through `${path}/:id/toggle`; throws on any other answer
 * than 201 and an active 200. Resolves to its id.
 */
export async function createDefinition(
  http: HttpClient,
  path: string,
  what: string,
  body: Record<string, unknown>,
  opts: { active?: boolean } = {},
): Promise<string> {
  const res = await http.post(path, body);
  if (res.status !== 201) throw new Error(`create ${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.data._id as string;
  if (opts.active !== false) {
    const t = await http.post(`${path}/${id}/toggle`);
    if (t.status !== 200 || t.body.data.isActive !== true)
      throw new Error(`toggle failed: ${t.status} ${JSON.stringify(t.body)}`);
  }
  return id;
}

/** The creator of one kind of definition: its collection, its name in errors and a fresh name for each. */
export const definitionCreator =
  (path: string, what: string, name: () => string) =>
  (http: HttpClient, body: Record<string, unknown>, opts: { active?: boolean } = {}): Promise<string> =>
    createDefinition(http, path, what, { name: name(), ...body }, opts);

/** A node of a definition graph (automation or sequence) at (x, y) on the editor's canvas. */
export const graphNode = <T extends string>(
  id: string,
  type: T,
  [x, y]: [number, number],
  data: Record<string, unknown>,
) => ({
  id,
  type,
  position: { x, y },
  data,
});
