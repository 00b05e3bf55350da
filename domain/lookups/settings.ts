/** Registry and public-avatar settings (CVR_API_URL, CVR_API_TOKEN, CVR_API_COUNTRY, AVATAR_LOOKUP_URL). */
export interface LookupEnv {
  cvrApiUrl?: string;
  cvrApiToken?: string;
  /** Registry country code sent with every search (default dk). */
  cvrCountry: string;
  /** Base URL of the Gravatar-compatible avatar service (default https://www.gravatar.com); `off` disables it. */
  avatarLookupUrl: string | null;
}

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

export const REGISTRY_NOT_CONFIGURED =
  'company registry lookups are not configured: set CVR_API_URL (and CVR_API_TOKEN when the registry needs a key)';
