import { DomainError } from '../../../platform/errors';
import type { SafeFetch } from '../../../platform/net/safe-fetch';
import type { OAuthProviderEnv } from '../../../platform/ports/cloud-provider.port';

/** JSON over the guarded client with a bearer token refreshed from a long-lived refresh token. */
export class OAuthJsonClient {
  private accessToken: string | undefined;
  private expiresAt = 0;
  private refreshing: Promise<string> | undefined;
  /** The provider's credentials (a copy: a rotated refresh token replaces this one, not the deployment's). */
  private readonly settings: {
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    refreshToken: string;
    scope?: string;
  };

  constructor(
    private readonly label: string,
    provider: OAuthProviderEnv,
    token: { tokenUrl: string; scope?: string },
    private readonly fetch: SafeFetch,
    private readonly allowHosts: readonly string[],
  ) {
    this.settings = {
      ...token,
      clientId: provider.clientId!,
      clientSecret: provider.clientSecret!,
      refreshToken: provider.refreshToken!,
    };
  }

  private async token(): Promise<string> {
    if (this.accessToken && Date.now() < this.expiresAt - 60_000) return this.accessToken;
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refresh(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: this.settings.clientId,
      client_secret: this.settings.clientSecret,
      refresh_token: this.settings.refreshToken,
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
    });
    const res = await this.fetch(this.settings.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      allowHosts: this.allowHosts,
    });
    const body = parse(res.body);
    if (res.status !== 200 || typeof body.access_token !== 'string') {
      // The provider's error code only: its description may echo request values.
      throw new DomainError(
        'upstream_failed',
        `${this.label}: the provider refused the stored refresh token (${String(body.error ?? res.status)}); reconnect the account`,
      );
    }
    this.accessToken = body.access_token;
    this.expiresAt = Date.now() + Number(body.expires_in ?? 3600) * 1000;
    // Providers that rotate refresh tokens return a new one; keep using the newest.
    if (typeof body.refresh_token === 'string') this.settings.refreshToken = body.refresh_token;
    return this.accessToken;
  }

  /** The parsed JSON body, or null for 404; other non-2xx answers are upstream failures. */
  async request(method: string, url: string, body?: unknown): Promise<Record<string, unknown> | null> {
    const token = await this.token();
    const res = await this.fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      allowHosts: this.allowHosts,
      timeoutMs: 15_000,
    });
    if (res.status === 404) return null;
    const parsed = parse(res.body);
    if (res.status < 200 || res.status >= 300) {
      const err = parsed.error as { code?: unknown; message?: unknown } | string | undefined;
      const code = typeof err === 'object' && err ? String(err.code ?? '') : String(err ?? '');
      throw new DomainError(
        'upstream_failed',
        `${this.label}: ${method} failed with HTTP ${res.status}${code ? ` (${code})` : ''}`,
      );
    }
    return parsed;
  }
}

function parse(body: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body.toString('utf8') || '{}');
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
