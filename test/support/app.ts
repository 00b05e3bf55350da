import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { buildApi, type ApiRuntime } from '../../api/bootstrap';
import type { AppConfig } from '../../platform/config';
import { loadConfig } from '../../app/config';
import { createLogger } from '../../platform/logger';
import { createWorkspace } from '../../modules/workspaces/workspaces.service';
import { createApiKey } from '../../modules/workspaces/api-keys.service';
import type { Role, Scope } from '../../platform/context';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export class HttpClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    init: { headers?: Record<string, string>; raw?: string } = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = {
      ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      ...init.headers,
    };
    let payload: string | undefined = init.raw;
    if (body !== undefined && payload === undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const send = () => fetch(this.baseUrl + path, { method, headers, body: payload });
    // A reused keep-alive socket the server closed at that moment (its 5 s idle timeout against the client's, both
    // late on a loaded event loop) fails with ECONNRESET before the request reached the app: a read is sent again
    // once. Writes are not: the suites check that each takes effect once.
    const res = await send().catch((err: unknown) => {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      if ((method === 'GET' || method === 'HEAD') && code === 'ECONNRESET') return send();
      throw err;
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep text */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }
  get<T = any>(path: string, init?: { headers?: Record<string, string> }) {
    return this.request<T>('GET', path, undefined, init);
  }
  post<T = any>(path: string, body?: unknown, init?: { headers?: Record<string, string>; raw?: string }) {
    return this.request<T>('POST', path, body, init);
  }
  put<T = any>(path: string, body?: unknown, init?: { headers?: Record<string, string>; raw?: string }) {
    return this.request<T>('PUT', path, body, init);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

export interface Tenant {
  workspaceId: string;
  userId: string;
  apiKey: string;
  http: HttpClient;
}

export interface TestApp {
  runtime: ApiRuntime;
  config: AppConfig;
  baseUrl: string;
  anonymous: HttpClient;
  /** A fresh workspace with its owner key (every scope). */
  tenant(name?: string): Promise<Tenant>;
  /** Another key for an existing workspace with the given scopes and role. */
  key(workspaceId: string, scopes: Scope[], role?: Role): Promise<HttpClient & { keyId: string }>;
  close(): Promise<void>;
}

/** The real app on an ephemeral port, against the services the test command started. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  // Suites make hundreds of calls with one key; the rate-limit tests pass their own limits.
  const config = loadConfig({
    ...process.env,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_DAY: '100000000',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  const runtime = await buildApi(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'api'));
  const server: Server = await new Promise((resolve) => {
    const s = runtime.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let counter = 0;
  return {
    runtime,
    config,
    baseUrl,
    anonymous: new HttpClient(baseUrl),
    async tenant(name = `Test workspace ${++counter}`) {
      const created = await createWorkspace(runtime.deps.orm.em.fork(), { name });
      return { ...created, http: new HttpClient(baseUrl, created.apiKey) };
    },
    async key(workspaceId, scopes, role = 'member') {
      const created = await createApiKey(runtime.deps.orm.em.fork(), { workspaceId, scopes, role });
      return Object.assign(new HttpClient(baseUrl, created.apiKey), { keyId: created.id });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await runtime.close();
    },
  };
}
