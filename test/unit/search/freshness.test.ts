import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeiliSearch } from 'meilisearch';
import { createIndexFreshness } from '../../../search/freshness';

function stubs(opts: {
  outbox?: { type: string; entity_type: string; payload: Record<string, unknown> }[];
  pendingTasks?: number;
}) {
  const taskQueries: Record<string, unknown>[] = [];
  const sqlCalls: unknown[][] = [];
  const sqlText: string[] = [];
  const client = {
    tasks: {
      getTasks: async (q: Record<string, unknown>) => {
        taskQueries.push(q);
        return { results: Array.from({ length: opts.pendingTasks ?? 0 }, (_, i) => ({ uid: i })) };
      },
    },
  } as unknown as MeiliSearch;
  const em = {
    getConnection: () => ({
      execute: async (sql: string, params: unknown[]) => (sqlText.push(sql), sqlCalls.push(params), opts.outbox ?? []),
    }),
  } as unknown as EntityManager;
  return { client, em, taskQueries, sqlCalls, sqlText };
}

describe('index freshness (is the index behind for a workspace?)', () => {
  it('is current with no old undelivered search events and no old pending Meilisearch writes', async () => {
    const s = stubs({});
    expect(await createIndexFreshness({ client: s.client, prefix: 'p_' }).behind(s.em, 'w1')).toBeNull();
    expect(s.sqlCalls[0]![0]).toBe('w1');
    expect(s.sqlText[0]).toMatch(/processed_at is null and attempts > 0 and not \(\? = any\(delivered_to\)\)/);
    expect(s.sqlCalls[0]![1]).toBe('search-index');
    expect(Date.now() - (s.sqlCalls[0]![2] as Date).getTime()).toBeGreaterThanOrEqual(2000);
    expect(s.taskQueries[0]).toMatchObject({
      statuses: ['enqueued', 'processing'],
      indexUids: expect.arrayContaining(['p_company', 'p_person']),
      limit: 1,
    });
    expect(Date.now() - Date.parse(s.taskQueries[0]!.beforeEnqueuedAt as string)).toBeGreaterThanOrEqual(2000);
  });

  it('is behind when an undelivered event touches an index, not for events search ignores', async () => {
    const relevant = stubs({ outbox: [{ type: 'company_created', entity_type: 'company', payload: {} }] });
    expect(await createIndexFreshness({ client: relevant.client, prefix: 'p_' }).behind(relevant.em, 'w1')).toMatch(
      /wait for their retry/,
    );
    const ignored = stubs({
      outbox: [{ type: 'lead_scoring_rules_changed', entity_type: 'lead_scoring_rule', payload: {} }],
    });
    expect(await createIndexFreshness({ client: ignored.client, prefix: 'p_' }).behind(ignored.em, 'w1')).toBeNull();
  });

  it('is behind while Meilisearch still has old accepted writes; that check is shared for a second', async () => {
    const s = stubs({ pendingTasks: 1 });
    const freshness = createIndexFreshness({ client: s.client, prefix: 'p_' });
    expect(await freshness.behind(s.em, 'w1')).toMatch(/Meilisearch has not applied/);
    expect(await freshness.behind(s.em, 'w2')).toMatch(/Meilisearch has not applied/);
    expect(s.taskQueries).toHaveLength(1);
    expect(s.sqlCalls).toHaveLength(2);
  });

  it('renews a check older than a second while searches take the last answer; waits once that is 5 s old', async () => {
    let clock = 1_000_000;
    const now = jest.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      const answers: ((pending: number) => void)[] = [];
      const s = stubs({});
      (s.client.tasks as { getTasks: unknown }).getTasks = () =>
        new Promise((resolve) => answers.push((n) => resolve({ results: Array.from({ length: n }) })));
      const freshness = createIndexFreshness({ client: s.client, prefix: 'p_' });
      const first = freshness.behind(s.em, 'w1');
      await new Promise(setImmediate);
      answers.shift()!(1); // nothing known yet: the first search waits for the check
      expect(await first).toMatch(/Meilisearch has not applied/);

      clock += 1500; // renewed; meanwhile the last answer holds
      expect(await freshness.behind(s.em, 'w1')).toMatch(/Meilisearch has not applied/);
      expect(answers).toHaveLength(1);
      expect(await freshness.behind(s.em, 'w1')).toMatch(/Meilisearch has not applied/);
      expect(answers).toHaveLength(1); // one renewal at a time
      answers.shift()!(0);
      await new Promise(setImmediate);
      expect(await freshness.behind(s.em, 'w1')).toBeNull();

      clock += 6000; // the last answer is too old to use: this search waits for the check
      let settled = false;
      const late = freshness.behind(s.em, 'w1').then((r) => ((settled = true), r));
      await new Promise(setImmediate);
      expect(settled).toBe(false);
      answers.shift()!(1);
      expect(await late).toMatch(/Meilisearch has not applied/);
    } finally {
      now.mockRestore();
    }
  });
});
