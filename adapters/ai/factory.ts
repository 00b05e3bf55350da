import type { AppConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import type { SafeFetch } from '../../platform/net/safe-fetch';
import type { AiProvider } from '../../platform/ports/ai-provider.port';
import { createOpenAiCompatibleProvider, type AiSettings } from './openai-compatible';

// Declaration merging: platform names no module.
declare module '../../platform/activity-deps' {
  interface ActivityDeps {
    /** Default: built from config on first use (createAiProvider). */
    ai?: AiProvider;
  }
}

export const AI_NOT_CONFIGURED = 'AI is not configured: set AI_BASE_URL, AI_API_KEY and AI_MODEL';

export function aiSettings(env: AppConfig['ai']): { settings: AiSettings } | { problem: string } {
  const missing = (['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'] as const).filter(
    (name, i) => ![env.baseUrl, env.apiKey, env.model][i],
  );
  if (missing.length) return { problem: `${AI_NOT_CONFIGURED} (missing: ${missing.join(', ')})` };
  let url: URL;
  try {
    url = new URL(env.baseUrl!);
  } catch {
    return { problem: 'AI is misconfigured: AI_BASE_URL is not a URL (e.g. https://api.openai.com/v1)' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: 'AI is misconfigured: AI_BASE_URL must be an http(s) URL' };
  return { settings: { baseUrl: env.baseUrl!, apiKey: env.apiKey!, model: env.model! } };
}

/** A provider that fails every use with the configuration problem, so the worker can always be built. */
export function unconfiguredAiProvider(problem: string): AiProvider {
  const fail = (): never => {
    throw new DomainError('not_configured', problem);
  };
  return { assertConfigured: fail, complete: async () => fail() };
}

/** The provider AI_* configures, or one that says what to configure. */
export function createAiProvider(
  config: Pick<AppConfig, 'ai' | 'outboundAllowHosts'>,
  options: { fetch?: SafeFetch } = {},
): AiProvider {
  const checked = aiSettings(config.ai);
  if ('problem' in checked) return unconfiguredAiProvider(checked.problem);
  return createOpenAiCompatibleProvider(checked.settings, {
    allowHosts: config.outboundAllowHosts,
    timeoutMs: config.ai.timeoutMs,
    fetch: options.fetch,
  });
}
