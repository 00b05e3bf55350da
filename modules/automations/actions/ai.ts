/**
 * The ai node: the prompt with placeholders resolved, sent through the AiProvider port (an
 * OpenAI-compatible adapter configured by env). Results: `ai_text`, `ai_json.<field>`, `aiOutput`;
 * a branching ai node leaves through true/false (aiBranchOf).
 */
import { aiBranchOf, aiDataSchema, aiSchemaOf } from '../node-data.schemas';
import { renderTemplate } from '../../../platform/shared/placeholders.pure';
import { issuesOf } from '../../../platform/shared/zod-kit';
import type { Context } from '../engine/types.pure';
import type { ActionEnv, ActionResult } from './types';
import { fail } from './types';

export interface AiConfig {
  prompt: string;
  outputMode: 'text' | 'json_schema';
  reasoningEffort: 'none' | 'low' | 'medium' | 'high';
  schema?: Record<string, unknown>;
}

export function parseAi(data: Record<string, unknown>, context: Context, timezone: string): AiConfig {
  const issues = issuesOf(aiDataSchema, data, 'data');
  if (issues.length) fail(`ai: ${issues.map((i) => `${i.path}: ${i.error}`).join('; ')}`);
  const d = aiDataSchema.parse(data);
  const prompt = renderTemplate(d.prompt, context, { timezone }).text;
  return {
    prompt,
    outputMode: d.outputMode,
    reasoningEffort: d.reasoningEffort,
    ...(d.outputMode === 'json_schema' ? { schema: aiSchemaOf(d.schema) ?? undefined } : {}),
  };
}

export function aiContext(output: unknown): Context {
  const o = (output ?? {}) as { text?: string; json?: Record<string, unknown> | null };
  return { ai_text: o.text ?? '', ai_json: o.json ?? {}, aiOutput: o.json ?? o.text ?? '' };
}

export async function performAi(env: ActionEnv, c: AiConfig): Promise<ActionResult & { handle: string }> {
  const provider = env.deps.ai() ?? fail('ai: the AI provider module is not available');
  const res = await provider.complete({
    prompt: c.prompt,
    outputMode: c.outputMode,
    reasoningEffort: c.reasoningEffort,
    ...(c.schema ? { schema: c.schema } : {}),
  });
  const output = { text: res.text, json: res.json ?? null, model: res.model, usage: res.usage ?? null };
  return { output, handle: aiBranchOf(res.json ?? res.text), contextPatch: aiContext(output) };
}
