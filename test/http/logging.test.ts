import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import { buildApi } from '../../api/bootstrap';
import { ok, route, type RouteDef } from '../../platform/http/registry';
import { Company } from '../../modules/companies/company.entity';
import { createRecord } from '../../platform/shared/records';
import { resolveStackConfig } from '../../infra/stack';
import { loadConfig } from '../../app/config';
import { createLogger } from '../../platform/logger';
import { createWorkspace } from '../../modules/workspaces/workspaces.service';
import { HttpClient } from '../support/app';

/** A stream that keeps each line written to it (the JSON log lines). */
function capture(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { lines, sink };
}

it('writes one structured JSON line per request with the request id, and never the key', async () => {
  const { lines, sink } = capture();
  const runtime = await buildApi(loadConfig(), createLogger('info', 'api', sink));
  const server = runtime.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { apiKey } = await createWorkspace(runtime.deps.orm.em.fork(), { name: 'Logging' });
    const viaHeader = await new HttpClient(base, apiKey).get('/api/v1/companies?q=x', {
      headers: { 'x-request-id': 'req-log-1' },
    });
    await new HttpClient(base).get(`/api/v1/companies?api_key=${apiKey}`);
    await new HttpClient(base).get('/api/v1/companies', { headers: { authorization: `Bearer ${apiKey}x` } });
    expect(viaHeader.status).toBe(200);
    const entries = lines.map((l) => JSON.parse(l));
    const first = entries.find((e) => e.requestId === 'req-log-1');
    expect(first).toMatchObject({ msg: 'request', method: 'GET', path: '/api/v1/companies', status: 200 });
    expect(typeof first.ms).toBe('number');
    expect(first.workspaceId).toMatch(/^[0-9a-f]{24}$/);
    expect(entries.filter((e) => e.msg === 'request')).toHaveLength(3);
    expect(lines.join('\n')).not.toContain(apiKey.slice(3));
  } finally {
    await new Promise((r) => server.close(r));
    await runtime.close();
  }
});

describe('failed SQL in the logs', () => {
  it('the API log names the SQLSTATE and table of a failed write, never its values; the Postgres log has none either', async () => {
    const { lines, sink } = capture();
    const runtime = await buildApi(loadConfig(), createLogger('info', 'api', sink));
    const email = `leak-${Date.now()}@example.test`;
    const phone = `+45 ${String(Date.now()).slice(-8)}`;
    // A write the validators would have refused, done by a handler: the database is the one to fail.
    const testWrite = (routePath: string, handler: RouteDef['handler']) =>
      route({
        method: 'POST',
        path: routePath,
        section: 'Test',
        summary: 'test',
        access: { scopes: ['write'] },
        handler,
      });
    const failing = testWrite('/test/failing-write', async ({ ctx }) => {
      ctx.em.persist(createRecord(ctx, Company, { name: 'x'.repeat(301), email, phone, customFields: [], tags: [] }));
      await ctx.em.flush();
      return ok(null);
    });
    const typed = testWrite('/test/failing-cast', async ({ ctx }) =>
      ok(await ctx.em.getConnection().execute('select ?::int as n', [email])),
    );
    const server = createApp(runtime.deps, [...runtime.routes, failing, typed]).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { apiKey } = await createWorkspace(runtime.deps.orm.em.fork(), { name: 'Logging SQL' });
      const http = new HttpClient(base, apiKey);
      for (const path of ['/test/failing-write', '/test/failing-cast']) {
        const res = await http.post(path, {});
        expect(res.status).toBe(500);
        expect(JSON.stringify(res.body)).not.toContain(email);
      }
      const errors = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === 'unhandled error');
      expect(errors).toHaveLength(2);
      expect(errors[0].err).toMatchObject({
        code: '22001',
        condition: 'string_data_right_truncation',
        message: 'database error 22001 (string_data_right_truncation)',
      });
      expect(errors[1].err).toMatchObject({ code: '22P02', condition: 'invalid_text_representation' });
      const all = lines.join('\n');
      expect(all).not.toContain(email);
      expect(all).not.toContain(phone);
      expect(all).not.toMatch(/insert into/i);
      // The embedded Postgres of the test stack logs no statement, parameter, DETAIL or client error
      // (checked when the tests run against it, i.e. its port is the one in DATABASE_URL).
      const stack = resolveStackConfig({ profile: 'test' });
      const pgLog = path.join(stack.dataDir, 'logs', 'postgres.log');
      if (new URL(loadConfig().databaseUrl).port === String(stack.ports.postgres)) {
        expect(fs.existsSync(pgLog)).toBe(true);
        const text = fs.readFileSync(pgLog, 'utf8');
        expect(text).not.toContain(email);
        expect(text).not.toMatch(/STATEMENT:/);
      }
    } finally {
      await new Promise((r) => server.close(r));
      await runtime.close();
    }
  });
});
