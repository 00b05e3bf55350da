import fs from 'node:fs';
import path from 'node:path';
import { indexPrefixEnv } from '../../platform/config';
import { validation } from '../../platform/errors';
import { parseId } from '../../modules/workspaces';
import { dataDirFor } from '../../infra/paths';
import { createMeiliClient } from '../../search/meili';
import { INDEXED_TYPES } from '../../search/registry';
import { reindex } from '../../search/reindex';
import type { CommandSpec } from './command-spec';
import { progressBar } from './progress';

/** Meilisearch of MEILI_URL/MEILI_MASTER_KEY, or (unset) the one `npm start` runs with its saved key. */
export function meiliFromEnv(env: NodeJS.ProcessEnv): { url: string; key: string | undefined; prefix: string } {
  const url = env.MEILI_URL || `http://127.0.0.1:${env.MEILI_PORT || 7700}`;
  let key = env.MEILI_MASTER_KEY || undefined;
  if (!key && !env.MEILI_URL) {
    const file = path.join(dataDirFor('dev', env), 'meili-master-key');
    key = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() || undefined : undefined;
  }
  return { url, key, prefix: indexPrefixEnv(env) };
}

export const searchReindexCommand: CommandSpec = {
  name: 'search reindex',
  summary:
    'Rebuild search indexes from Postgres (all workspaces: new index + swap, no downtime; one workspace: in place)',
  flags: [
    { name: 'workspace', value: '<id>', required: false, description: "only this workspace's documents" },
    { name: 'type', value: '<type>', required: false, description: INDEXED_TYPES.join('|') },
  ],
  prepare(values) {
    const workspaceId = values.workspace === undefined ? undefined : parseId(values.workspace, 'workspace');
    const type = values.type;
    if (type !== undefined && !INDEXED_TYPES.includes(type))
      throw validation(`--type: unknown search type "${type}"; types: ${INDEXED_TYPES.join(', ')}`);
    return async (em, io) => {
      const meili = meiliFromEnv(io.env);
      const bar = progressBar(io.stderr, io.stderrIsTTY);
      const results = await reindex({
        em,
        client: createMeiliClient(meili.url, meili.key, { timeoutMs: 30_000 }),
        prefix: meili.prefix,
        workspaceId,
        types: type ? [type] : undefined,
        onProgress: (p) => bar.update(`${p.type} ${p.phase}`, p.done, p.total),
      }).finally(() => bar.finish());
      return {
        result: { indexes: results },
        human: results
          .map(
            (r) =>
              `${r.index}: ${r.documents} documents (${r.mode === 'swap' ? 'rebuilt and swapped' : `workspace ${workspaceId} rebuilt, ${r.deleted} stale removed`}, ${r.caughtUp} caught up) in ${(r.ms / 1000).toFixed(1)} s`,
          )
          .join('\n'),
      };
    };
  },
};
