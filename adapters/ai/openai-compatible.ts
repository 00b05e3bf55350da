import { DomainError } from '../../platform/errors';
import { safeFetch as defaultFetch, type SafeFetch } from '../../platform/net/safe-fetch';
import {
  validateAiRequest,
  type AiCompletion,
  type AiCompletionRequest,
  type AiProvider,
  type AiUsage,
} from '../../platform/ports/ai-provider.port';
import { parseJsonOutput, toStrictSchema } from './json-output';

/**
 * OpenAI-compatible chat completions: POST `${baseUrl}/chat/completions` with a bearer key.
 * json_schema mode sends `response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } }`;
 * reasoningEffort other than `none` is sent as `reasoning_effort`.
 */

export const AI_TIMEOUT_MS = 60_000;
export const AI_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

export interface AiSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
}

export interface OpenAiCompatibleOptions {
  allowHosts?: readonly string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
  fetch?: SafeFetch;
}

interface ChatCompletionResponse {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  error?: { message?: unknown };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function usageOf(raw: ChatCompletionResponse['usage']): AiUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = {
    promptTokens: num(raw.prompt_tokens),
    completionTokens: num(raw.completion_tokens),
    totalTokens: num(raw.total_tokens),
  };
  return Object.values(usage).some((v) => v !== undefined) ? usage : undefined;
}

function errorDetail(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    const said = (JSON.parse(text) as ChatCompletionResponse).error?.message;
    if (typeof said === 'string') return said.slice(0, 300);
  } catch {
    /* not JSON */
  }
  return text.trim().slice(0, 300) || '(empty body)';
}

export function createOpenAiCompatibleProvider(
  settings: AiSettings,
  options: OpenAiCompatibleOptions = {},
): AiProvider {
  const fetch = options.fetch ?? defaultFetch;
  const endpoint = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const origin = new URL(endpoint).origin;
  const post = async (body: Record<string, unknown>) => {
    try {
      return await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${settings.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(body),
        timeoutMs: options.timeoutMs ?? AI_TIMEOUT_MS,
        maxBytes: options.maxResponseBytes ?? AI_MAX_RESPONSE_BYTES,
        allowHosts: options.allowHosts,
      });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') {
        throw new DomainError(
          'not_configured',
          `AI is misconfigured: ${err.message} (add the host to OUTBOUND_ALLOW_HOSTS if it is private)`,
        );
      }
      if (err instanceof DomainError && err.code === 'too_large')
        throw new DomainError('upstream_failed', `AI provider ${origin}: ${err.message}`);
      if (err instanceof DomainError) throw new DomainError('upstream_failed', `AI provider: ${err.message}`);
      throw err;
    }
  };
  return {
    async complete(request: AiCompletionRequest): Promise<AiCompletion> {
      const req = validateAiRequest(request);
      const body: Record<string, unknown> = {
        model: settings.model,
        messages: [{ role: 'user', content: req.prompt }],
      };
      if (req.schema)
        body.response_format = {
          type: 'json_schema',
          json_schema: { name: 'output', schema: toStrictSchema(req.schema), strict: true },
        };
      if (req.reasoningEffort !== 'none') body.reasoning_effort = req.reasoningEffort;
      let res = await post(body);
      // Models without reasoning refuse the parameter (400); the spec's default effort is low, so
      // such a model would fail every node: ask once more without it.
      if (res.status === 400 && body.reasoning_effort && /reasoning_effort/i.test(errorDetail(res.body))) {
        delete body.reasoning_effort;
        res = await post(body);
      }
      if (res.status < 200 || res.status >= 300) {
        const why =
          res.status === 401 || res.status === 403
            ? 'rejected the API key (check AI_API_KEY)'
            : `answered ${res.status}`;
        throw new DomainError('upstream_failed', `AI provider ${origin} ${why}: ${errorDetail(res.body)}`, {
          status: res.status,
          retryable: res.status === 429 || res.status >= 500,
        });
      }
      let parsed: ChatCompletionResponse;
      try {
        parsed = JSON.parse(res.body.toString('utf8')) as ChatCompletionResponse;
      } catch {
        throw new DomainError(
          'upstream_failed',
          `AI provider ${origin} answered ${res.status} with a body that is not JSON`,
        );
      }
      const choice = Array.isArray(parsed?.choices) ? parsed.choices[0] : undefined;
      const message = choice?.message;
      if (typeof message?.refusal === 'string' && message.refusal)
        throw new DomainError('upstream_failed', `the AI model refused: ${message.refusal.slice(0, 300)}`);
      if (typeof message?.content !== 'string')
        throw new DomainError('upstream_failed', `AI provider ${origin} answered without a message content`);
      if (choice?.finish_reason === 'length' && req.schema)
        throw new DomainError(
          'upstream_failed',
          'the AI output was cut off at the token limit before the JSON was complete',
        );
      const text = message.content;
      const model = typeof parsed.model === 'string' && parsed.model ? parsed.model : settings.model;
      const usage = usageOf(parsed.usage);
      const completion: AiCompletion = { text, model, ...(usage ? { usage } : {}) };
      if (req.schema) completion.json = parseJsonOutput(text, req.schema);
      return completion;
    },
  };
}
