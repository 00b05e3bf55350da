import type { LookupEnv } from '../../platform/ports/registry.port';

export type { LookupEnv } from '../../platform/ports/registry.port';

const opt = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

export function lookupEnv(env: NodeJS.ProcessEnv): LookupEnv {
  const avatar = opt(env, 'AVATAR_LOOKUP_URL') ?? 'https://www.gravatar.com';
  return {
    cvrApiUrl: opt(env, 'CVR_API_URL'),
    cvrApiToken: opt(env, 'CVR_API_TOKEN'),
    cvrCountry: (opt(env, 'CVR_API_COUNTRY') ?? 'dk').toLowerCase(),
    avatarLookupUrl: avatar.toLowerCase() === 'off' ? null : avatar.replace(/\/+$/, ''),
  };
}

// This module's section of AppConfig (platform/config.ts), loaded by its `settings` (lookups.module.ts).
declare module '../../platform/config' {
  interface ModuleSettings {
    /** Company registry and public avatar lookups (CVR_API_*, AVATAR_LOOKUP_URL). */
    lookups: LookupEnv;
  }
}
