import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { buildApi } from '../../api/bootstrap';
import { loadConfig } from '../../domain/config';
import { createLogger } from '../../domain/logger';
import { createWorkspace } from '../../domain/workspaces/workspaces.service';
import { HttpClient } from '../support/app';

it('writes one structured JSON line per request with the request id, and never the key', async () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(...String(chunk).split('\n').filter(Boolean)); cb(); } });
  const runtime = await buildApi(loadConfig(), createLogger('info', 'api', sink));
  const server = runtime.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { apiKey } = await createWorkspace(runtime.deps.orm.em.fork(), { name: 'Logging' });
    const viaHeader = await new HttpClient(base, apiKey).get('/api/v1/companies?q=x', { headers: { 'x-request-id': 'req-log-1' } });
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
