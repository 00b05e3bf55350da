// The AI parts of sequence steps: `{{ai:<id>}}` blocks in a message, and the ai_condition / ai_analyzer steps.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AiProvider } from '../ai';
import { renderTemplate } from '../../platform/shared/placeholders.pure';
import type { SequenceEnrollment } from './sequence.entity';
import { upsertStep } from './step-rows';
import type { StepActivityInput, StepActivityResult } from './types';
import { PLACEHOLDERS, requireAi, type StepDeps } from './sequence-step-context';

async function complete(
  provider: AiProvider,
  prompt: string,
  outputMode: 'text' | 'json_schema',
  schema?: Record<string, unknown>,
  reasoningEffort: 'none' | 'low' | 'medium' | 'high' = 'low',
) {
  return provider.complete({ prompt, outputMode, reasoningEffort, ...(schema ? { schema } : {}) });
}

/** `{{ai:<id>}}` blocks generated for this recipient (their prompts may use placeholders). */
export async function renderAiBlocks(
  deps: StepDeps,
  text: string,
  blocks: { id: string; prompt: string }[],
  context: Record<string, unknown>,
  tz: string,
  escape: boolean,
): Promise<string> {
  const used = blocks.filter((b) => text.includes(`{{ai:${b.id}}}`));
  if (!used.length) return text;
  const provider = requireAi(deps);
  let out = text;
  for (const b of used) {
    const res = await complete(
      provider,
      renderTemplate(b.prompt, context, { ...PLACEHOLDERS, timezone: tz }).text,
      'text',
    );
    const value = escape ? res.text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`) : res.text;
    out = out.split(`{{ai:${b.id}}}`).join(value);
  }
  return out;
}

export async function aiStep(
  deps: StepDeps,
  em: EntityManager,
  e: SequenceEnrollment,
  node: StepActivityInput['node'],
  context: Record<string, unknown>,
): Promise<StepActivityResult> {
  const d = node.data;
  const tz = e.snapshot.settings.sendSettings.timezone;
  const provider = requireAi(deps);
  const prompt = renderTemplate(String(d.prompt), context, { ...PLACEHOLDERS, timezone: tz }).text;
  if (node.type === 'ai_condition') {
    const schema = {
      type: 'object',
      properties: { decision: { type: 'boolean' }, confidence: { type: 'number' }, reason: { type: 'string' } },
      required: ['decision', 'confidence'],
    };
    const res = await complete(
      provider,
      `${prompt}\n\nAnswer with decision (true = yes, false = no), your confidence between 0 and 1, and a short reason.`,
      'json_schema',
      schema,
    );
    const decision = res.json?.decision === true;
    const confidence = typeof res.json?.confidence === 'number' ? res.json.confidence : 0;
    const threshold = typeof d.confidenceThreshold === 'number' ? d.confidenceThreshold : 0.7;
    const handle = decision && confidence >= threshold ? 'true' : 'false';
    const output = { decision, confidence, threshold, reason: res.json?.reason ?? null, model: res.model };
    await upsertStep(em, e, node.id, node.type, { status: 'completed', output, handle });
    return { status: 'completed', handle, output };
  }
  const mode = d.outputMode === 'text' ? 'text' : 'json_schema';
  const schema =
    mode === 'json_schema'
      ? ((typeof d.schema === 'string' ? JSON.parse(d.schema) : d.schema) as Record<string, unknown>)
      : undefined;
  const res = await complete(provider, prompt, mode, schema, (d.reasoningEffort ?? 'low') as 'low');
  const output = { text: res.text, json: res.json ?? null, model: res.model };
  await upsertStep(em, e, node.id, node.type, { status: 'completed', output });
  return { status: 'completed', output };
}
