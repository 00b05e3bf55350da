import { loadConfig } from '../../../app/config';
import { createAiProvider } from '../../../adapters/ai/factory';
import { createOpenAiCompatibleProvider } from '../../../adapters/ai/openai-compatible';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';

let api: LocalHttp;
beforeAll(async () => {
  api = await startHttp();
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
});

const provider = (opts: { timeoutMs?: number; maxResponseBytes?: number } = {}) =>
  createOpenAiCompatibleProvider(
    { baseUrl: `${api.url}/v1/`, apiKey: 'sk-test', model: 'test-model' },
    { allowHosts: ['127.0.0.1'], ...opts },
  );
const completion = (content: string, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  model: 'test-model-2025',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  ...extra,
});
const schema = {
  type: 'object',
  properties: { interested: { type: 'boolean' }, reason: { type: 'string' }, score: { type: 'integer' } },
  required: ['interested', 'reason'],
};
const lastBody = () => JSON.parse(api.requests[api.requests.length - 1]!.body) as Record<string, unknown>;

describe('OpenAI-compatible provider', () => {
  it('text mode: posts the prompt to /chat/completions with the key and model', async () => {
    api.respond(json(200, completion('Yes, they want a demo.')));
    const out = await provider().complete({
      prompt: 'Is the lead interested?',
      outputMode: 'text',
      reasoningEffort: 'medium',
    });
    expect(out).toEqual({
      text: 'Yes, they want a demo.',
      model: 'test-model-2025',
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
    });
    const req = api.requests[0]!;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(lastBody()).toEqual({
      model: 'test-model',
      messages: [{ role: 'user', content: 'Is the lead interested?' }],
      reasoning_effort: 'medium',
    });
  });

  it('reasoningEffort none is not sent; the default is low', async () => {
    api.respond(json(200, completion('ok')));
    await provider().complete({ prompt: 'p', outputMode: 'text', reasoningEffort: 'none' });
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    await provider().complete({ prompt: 'p', outputMode: 'text' });
    expect(lastBody().reasoning_effort).toBe('low');
  });

  it('a model that refuses reasoning_effort is asked again without it', async () => {
    api.respond((req, res) => {
      const sent = JSON.parse(req.body) as Record<string, unknown>;
      if ('reasoning_effort' in sent)
        return json(400, {
          error: { message: "Unsupported parameter: 'reasoning_effort' is not supported with this model." },
        })(req, res);
      return json(200, completion('plain model'))(req, res);
    });
    await expect(
      provider().complete({ prompt: 'p', outputMode: 'text', reasoningEffort: 'high' }),
    ).resolves.toMatchObject({ text: 'plain model' });
    expect(api.requests.map((r) => 'reasoning_effort' in JSON.parse(r.body))).toEqual([true, false]);
  });

  it('json_schema mode: strict response_format, parsed and checked output', async () => {
    api.respond(json(200, completion('{"interested":true,"reason":"asked for price","score":null}')));
    const out = await provider().complete({
      prompt: 'Classify',
      outputMode: 'json_schema',
      schema,
      reasoningEffort: 'low',
    });
    expect(out.json).toEqual({ interested: true, reason: 'asked for price', score: null });
    expect(out.text).toBe('{"interested":true,"reason":"asked for price","score":null}');
    expect(lastBody().response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'output',
        strict: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['interested', 'reason', 'score'],
          properties: {
            interested: { type: 'boolean' },
            reason: { type: 'string' },
            score: { type: ['integer', 'null'] },
          },
        },
      },
    });
  });

  it('json mode tolerates a ```json fence around the object', async () => {
    api.respond(json(200, completion('```json\n{"interested":false,"reason":"no budget"}\n```')));
    const out = await provider().complete({ prompt: 'Classify', outputMode: 'json_schema', schema });
    expect(out.json).toEqual({ interested: false, reason: 'no budget' });
  });

  it.each([
    [
      'non-JSON output',
      completion('Sure! The lead is interested.'),
      'did not return JSON in json_schema mode (got: "Sure! The lead is interested.")',
    ],
    ['truncated JSON', completion('{"interested": tr'), 'did not return JSON'],
    ['a JSON array', completion('[1,2]'), 'not an object'],
    ['a missing required field', completion('{"interested":true}'), 'missing required field(s): reason'],
    ['a wrong type', completion('{"interested":"yes","reason":"x"}'), 'field "interested" must be of type boolean'],
    [
      'a refusal',
      { model: 'm', choices: [{ message: { content: null, refusal: 'I cannot help with that' } }] },
      'the AI model refused: I cannot help with that',
    ],
    [
      'output cut at the token limit',
      { model: 'm', choices: [{ message: { content: '{"interested":' }, finish_reason: 'length' }] },
      'cut off at the token limit',
    ],
    ['no choices', { model: 'm', choices: [] }, 'without a message content'],
  ])('json mode, %s: upstream_failed with a clear message', async (_name, body, message) => {
    api.respond(json(200, body));
    await expect(provider().complete({ prompt: 'Classify', outputMode: 'json_schema', schema })).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining(message),
    });
  });

  it.each([
    [500, { error: { message: 'The server had an error' } }, 'answered 500: The server had an error', true],
    [429, { error: { message: 'Rate limit reached' } }, 'answered 429: Rate limit reached', true],
    [
      401,
      { error: { message: 'Incorrect API key provided' } },
      'rejected the API key (check AI_API_KEY): Incorrect API key provided',
      false,
    ],
    [400, 'bad request', 'answered 400: bad request', false],
  ])('HTTP %i: upstream_failed', async (status, body, message, retryable) => {
    api.respond(json(status, body));
    await expect(provider().complete({ prompt: 'p', outputMode: 'text' })).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining(message),
      details: { status, retryable },
    });
  });

  it('2xx with a body that is not JSON: upstream_failed', async () => {
    api.respond((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy</html>'));
    await expect(provider().complete({ prompt: 'p', outputMode: 'text' })).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('not JSON'),
    });
  });

  it('no answer within the timeout: upstream_failed', async () => {
    api.respond(() => undefined);
    const started = Date.now();
    await expect(provider({ timeoutMs: 300 }).complete({ prompt: 'p', outputMode: 'text' })).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('no complete answer within 300 ms'),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a response over the size cap: upstream_failed', async () => {
    api.respond(json(200, completion('x'.repeat(5000))));
    await expect(
      provider({ maxResponseBytes: 1000 }).complete({ prompt: 'p', outputMode: 'text' }),
    ).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('larger than the 1000-byte limit'),
    });
  });

  it.each([
    ['empty prompt', { prompt: ' ', outputMode: 'text' }, 'prompt: is required'],
    [
      'prompt over 100000 characters',
      { prompt: 'p'.repeat(100_001), outputMode: 'text' },
      'prompt: must be at most 100000',
    ],
    ['unknown mode', { prompt: 'p', outputMode: 'xml' }, 'outputMode: must be one of'],
    ['unknown effort', { prompt: 'p', outputMode: 'text', reasoningEffort: 'max' }, 'reasoningEffort: must be one of'],
    ['json mode without schema', { prompt: 'p', outputMode: 'json_schema' }, 'schema: is required'],
    [
      'array schema',
      { prompt: 'p', outputMode: 'json_schema', schema: { type: 'array' } },
      'schema: must have type "object"',
    ],
    [
      'bad required',
      { prompt: 'p', outputMode: 'json_schema', schema: { type: 'object', required: 'x' } },
      'schema: required must be an array',
    ],
  ])('%s: 400 before anything is sent', async (_name, request, message) => {
    await expect(provider().complete(request as never)).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining(message),
    });
    expect(api.requests).toHaveLength(0);
  });

  it('accepts a prompt of exactly 100000 characters', async () => {
    api.respond(json(200, completion('ok')));
    await expect(provider().complete({ prompt: 'p'.repeat(100_000), outputMode: 'text' })).resolves.toMatchObject({
      text: 'ok',
    });
  });
});

describe('createAiProvider', () => {
  const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };

  it.each([
    [{}, 'AI is not configured: set AI_BASE_URL, AI_API_KEY and AI_MODEL (missing: AI_BASE_URL, AI_API_KEY, AI_MODEL)'],
    [{ AI_BASE_URL: 'https://api.example.com/v1', AI_API_KEY: 'k' }, '(missing: AI_MODEL)'],
    [{ AI_BASE_URL: 'api.example.com', AI_API_KEY: 'k', AI_MODEL: 'm' }, 'AI_BASE_URL is not a URL'],
  ])('unconfigured %j: not_configured on use', async (env, message) => {
    const ai = createAiProvider(loadConfig({ ...base, ...env }));
    await expect(ai.complete({ prompt: 'p', outputMode: 'text' })).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining(message),
    });
  });

  it('configured: talks to AI_BASE_URL through the allow-list and the configured timeout', async () => {
    api.respond(json(200, completion('hello')));
    const ai = createAiProvider(
      loadConfig({
        ...base,
        AI_BASE_URL: `${api.url}/v1`,
        AI_API_KEY: 'k',
        AI_MODEL: 'm',
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      }),
    );
    await expect(ai.complete({ prompt: 'p', outputMode: 'text' })).resolves.toMatchObject({ text: 'hello' });
    const blocked = createAiProvider(
      loadConfig({ ...base, AI_BASE_URL: `${api.url}/v1`, AI_API_KEY: 'k', AI_MODEL: 'm' }),
    );
    await expect(blocked.complete({ prompt: 'p', outputMode: 'text' })).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('OUTBOUND_ALLOW_HOSTS'),
    });
  });
});
