// An OpenAI-compatible chat-completions stand-in on a local port, for the AI steps of automations and
// sequences.
import { json, startHttp } from '../unit/messaging/local-http';

export interface AiStub {
  /** The base URL to configure as AI_BASE_URL (ends in /v1). */
  baseUrl: string;
  /** Every prompt received (the request's message contents joined by new lines), oldest first. */
  prompts: string[];
  close(): Promise<void>;
}

/** Answers each request with `answer(prompt, json)`: `json` says the request asked for a JSON response format. */
export async function startAiStub(answer: (prompt: string, json: boolean) => string): Promise<AiStub> {
  const server = await startHttp();
  const prompts: string[] = [];
  server.respond((req, res) => {
    const parsed = JSON.parse(req.body) as { messages: { content: string }[]; response_format?: unknown };
    const prompt = parsed.messages.map((m) => m.content).join('\n');
    prompts.push(prompt);
    const content = answer(prompt, !!parsed.response_format);
    json(200, { model: 'stub-1', choices: [{ message: { content }, finish_reason: 'stop' }] })(req, res);
  });
  return { baseUrl: `${server.url}/v1`, prompts, close: () => server.close() };
}
