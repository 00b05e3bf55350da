import { MeiliSearch } from 'meilisearch';

export function createMeiliClient(url: string, apiKey: string | undefined): MeiliSearch {
  return new MeiliSearch({ host: url, apiKey, timeout: 5000 });
}

/** Readiness probe: Meilisearch answers /health with status "available". */
export async function meiliHealthy(client: MeiliSearch): Promise<void> {
  const health = await client.health();
  if (health.status !== 'available') throw new Error(`status ${health.status}`);
}
