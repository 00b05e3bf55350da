import { execFile } from 'node:child_process';
import path from 'node:path';
import { newId } from '../../platform/ids';
import { runCrm } from '../support/cli';
import { createMeiliClient } from '../../search/meili';
import { reindex, type ReindexOptions } from '../../search/reindex';
import type { Tenant, TestApp } from '../support/app';
import { searchUntil, testMeili, titles, uniqueIndexPrefix } from '../support/search';
import { withSearchApp } from '../support/search-suite';

// No dispatcher runs here: the indexes only change through `search reindex`.
const PREFIX = uniqueIndexPrefix('reindex');
const ROOT = path.resolve(__dirname, '../..');
const meili = testMeili();
let app: TestApp;
let x: Tenant;
let y: Tenant;

jest.setTimeout(120_000);

withSearchApp(PREFIX, (a) => (app = a));
beforeAll(async () => {
  [x, y] = await Promise.all([app.tenant('Reindex X'), app.tenant('Reindex Y')]);
  await x.http.post('/api/v1/companies', { name: 'Tamarind Shipping' });
  await y.http.post('/api/v1/companies', { name: 'Tamarind Yards' });
});

const run = (opts: Partial<ReindexOptions>) =>
  reindex({ em: app.runtime.deps.orm.em, client: meili, prefix: PREFIX, types: ['company'], ...opts });
const ghost = (workspaceId: string, title: string) => ({
  id: newId(),
  workspaceId,
  title,
  subtitle: null,
  updatedAt: Date.now(),
});
const inject = async (...docs: object[]) => {
  const task = await meili.index(`${PREFIX}company`).addDocuments(docs).waitTask({ timeout: 60_000 });
  expect(task.status).toBe('succeeded');
};

describe('search reindex', () => {
  it('--workspace rebuilds that workspace in place: current rows in, stale documents out, others untouched', async () => {
    const [first] = await run({ workspaceId: x.workspaceId });
    expect(first).toMatchObject({
      type: 'company',
      index: `${PREFIX}company`,
      mode: 'workspace',
      documents: 1,
      deleted: 0,
    });
    expect(titles(await searchUntil(x.http, 'q=tamarind'), 'company')).toEqual(['Tamarind Shipping']);
    expect(titles(await searchUntil(y.http, 'q=tamarind'), 'company')).toEqual([]);

    await inject(ghost(x.workspaceId, 'Tamarind Ghost'), ghost(y.workspaceId, 'Tamarind Phantom'));
    const [second] = await run({ workspaceId: x.workspaceId });
    expect(second).toMatchObject({ documents: 1, deleted: 1 });
    expect(titles(await searchUntil(x.http, 'q=tamarind'), 'company')).toEqual(['Tamarind Shipping']);
    expect(titles(await searchUntil(y.http, 'q=tamarind'), 'company')).toEqual(['Tamarind Phantom']);
  });

  it('a full rebuild loads a new index and swaps it in: searches keep answering meanwhile, stale documents are gone', async () => {
    let done = false;
    const answers: Array<{ status: number; titles: string[]; degraded: boolean }> = [];
    const poll = (async () => {
      while (!done) {
        const res = await x.http.get('/api/v1/search?q=tamarind&types=company');
        answers.push({
          status: res.status,
          titles: titles(res.body, 'company'),
          degraded: Boolean(res.body?.data?.degraded),
        });
      }
    })();
    const [result] = await run({}).finally(() => (done = true));
    await poll;

    expect(result).toMatchObject({ mode: 'swap', index: `${PREFIX}company` });
    expect(result.documents).toBeGreaterThanOrEqual(2);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200 || !a.titles.includes('Tamarind Shipping'))).toEqual([]);
    expect(titles(await searchUntil(y.http, 'q=tamarind'), 'company')).toEqual(['Tamarind Yards']);
    const { results } = await meili.getRawIndexes({ limit: 1000 });
    expect(results.map((i) => i.uid).filter((uid) => uid.startsWith(PREFIX) && uid.includes('__rebuild_'))).toEqual([]);
  });

  it('a write made while the rebuild runs is caught up from the outbox', async () => {
    const id = (await x.http.post('/api/v1/companies', { name: 'Saffron Before' })).body.data._id;
    let renamed = false;
    await run({
      workspaceId: x.workspaceId,
      onProgress: async (p) => {
        // After Postgres was read and before the rebuild finishes: the loaded document is stale.
        if (p.phase === 'index' && !renamed) {
          renamed = true;
          expect((await x.http.put(`/api/v1/companies/${id}`, { name: 'Saffron After' })).status).toBe(200);
        }
      },
    });
    expect(renamed).toBe(true);
    expect(titles(await searchUntil(x.http, 'q=saffron'), 'company')).toEqual(['Saffron After']);
  });
});

describe('crm search reindex (CLI)', () => {
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, MEILI_INDEX_PREFIX: PREFIX });
  const cli = (args: string[]) => runCrm(args, env());

  it('runs as a process: progress on stderr, the JSON result on the last stdout line', async () => {
    const res = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        path.join(ROOT, 'node_modules/.bin/tsx'),
        ['bin/crm.ts', 'search', 'reindex', '--workspace', x.workspaceId, '--type', 'company', '--json'],
        { cwd: ROOT, env: env(), timeout: 90_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
      );
    });
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(JSON.parse(lines[lines.length - 1])).toEqual({
      indexes: [
        expect.objectContaining({
          type: 'company',
          index: `${PREFIX}company`,
          mode: 'workspace',
          documents: 2,
          deleted: 0,
        }),
      ],
    });
    expect(res.stderr).toMatch(/company load \[#+\] 100% 2\/2/);
  });

  it.each([
    [['search', 'reindex', '--type', 'spaceship'], 2, /unknown search type "spaceship"; types: company, person/],
    [['search', 'reindex', '--workspace', 'nope'], 2, /invalid workspace id "nope"/],
    [['search', 'reindex', '--type'], 2, /--type/],
    [['search', 'reindex', '--workspace', newId()], 1, /workspace not found/],
  ])('%j exits %i', async (args, code, message) => {
    const res = await cli([...args, '--json']);
    expect(res.code).toBe(code);
    expect(res.stderr).toMatch(message);
  });

  it('is listed in the usage', async () => {
    const res = await cli(['help']);
    expect(res.stdout).toMatch(/search reindex +\[--workspace <id>\] \[--type <type>\]/);
  });
});

it('uses a Meilisearch it can reach (sanity of the shared test server)', async () => {
  await expect(
    createMeiliClient(process.env.MEILI_URL as string, process.env.MEILI_MASTER_KEY).health(),
  ).resolves.toEqual({ status: 'available' });
});
