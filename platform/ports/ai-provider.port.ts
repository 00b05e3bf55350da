import { validation } from '../errors';

/** The port the automation ai node (and sequence ai_analyzer) completes prompts through. */

export type AiOutputMode = 'text' | 'json_schema';
export type ReasoningEffort = 'none' | 'low' | 'medium' | 'high';
export const AI_OUTPUT_MODES: readonly AiOutputMode[] = ['text', 'json_schema'];
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ['none', 'low', 'medium', 'high'];

/** Resolved prompts may be far longer than the 20 000-character template (placeholders expand). */
export const MAX_PROMPT_CHARS = 100_000;
export const MAX_SCHEMA_BYTES = 64 * 1024;

export interface AiCompletionRequest {
  prompt: string;
  outputMode: AiOutputMode;
  /** JSON Schema of an object; required with json_schema. */
  schema?: Record<string, unknown>;
  /** Default `low` (the spec's default). */
  reasoningEffort?: ReasoningEffort;
}

export interface AiUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

export interface AiCompletion {
  /** The model's answer as text (in json_schema mode, the raw JSON text). */
  text: string;
  /** json_schema mode: the parsed object, checked against the schema's top-level properties. */
  json?: Record<string, unknown>;
  model: string;
  usage?: AiUsage;
}

export interface AiProvider {
  assertConfigured?(): void;
  complete(request: AiCompletionRequest): Promise<AiCompletion>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 400 for a request no provider could answer (checked before anything is sent). */
export function validateAiRequest(request: AiCompletionRequest): Required<
  Pick<AiCompletionRequest, 'prompt' | 'outputMode' | 'reasoningEffort'>
> & {
  schema?: Record<string, unknown>;
} {
  if (typeof request.prompt !== 'string' || !request.prompt.trim()) throw validation('prompt: is required');
  if (request.prompt.length > MAX_PROMPT_CHARS)
    throw validation(`prompt: must be at most ${MAX_PROMPT_CHARS} characters after placeholders are filled in`);
  if (!AI_OUTPUT_MODES.includes(request.outputMode))
    throw validation(`outputMode: must be one of ${AI_OUTPUT_MODES.join(', ')}`);
  const reasoningEffort = request.reasoningEffort ?? 'low';
  if (!REASONING_EFFORTS.includes(reasoningEffort))
    throw validation(`reasoningEffort: must be one of ${REASONING_EFFORTS.join(', ')}`);
  if (request.outputMode === 'text') return { prompt: request.prompt, outputMode: 'text', reasoningEffort };
  const schema = request.schema;
  if (!isObject(schema)) throw validation('schema: is required with outputMode json_schema (a JSON Schema object)');
  if (schema.type !== undefined && schema.type !== 'object') throw validation('schema: must have type "object"');
  if (schema.properties !== undefined && !isObject(schema.properties))
    throw validation('schema: properties must be an object');
  if (
    schema.required !== undefined &&
    !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string'))
  ) {
    throw validation('schema: required must be an array of property names');
  }
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES)
    throw validation(`schema: must be at most ${MAX_SCHEMA_BYTES} bytes as JSON`);
  return { prompt: request.prompt, outputMode: 'json_schema', reasoningEffort, schema };
}
