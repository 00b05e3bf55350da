import { z } from 'zod';
import { idView, recordViewFields } from '../../platform/shared/views';

export const MODEL_TIERS = ['fast', 'balanced', 'thorough'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const clearable = (max: number) =>
  text(max)
    .nullable()
    .transform((v) => (v === '' || v === null ? null : v));

export const DEFAULT_PERMISSIONS = {
  trustLevel: 'suggest',
  allowedModules: [] as string[],
  webAccess: false,
  maxActionsPerRun: 10,
  maxDailyActions: 100,
};

/** Agent permissions; unknown keys are dropped, missing ones take the defaults above. */
export const permissionsSchema = z.object({
  trustLevel: text(50).min(1, 'must not be empty').optional(),
  allowedModules: z.array(text(100).min(1, 'must not be empty')).max(100, 'at most 100 modules').optional(),
  webAccess: z.boolean().optional(),
  maxActionsPerRun: z.number().int('must be an integer').min(0).max(10_000).optional(),
  maxDailyActions: z.number().int('must be an integer').min(0).max(1_000_000).optional(),
});
export type AgentPermissions = typeof DEFAULT_PERMISSIONS;

const fields = {
  description: clearable(5000),
  goal: clearable(5000),
  systemPrompt: clearable(50_000),
  icon: clearable(100),
  modelTier: z.enum(MODEL_TIERS, { message: `modelTier must be one of ${MODEL_TIERS.join(', ')}` }),
  enabled: z.boolean(),
  permissions: permissionsSchema,
};

const name = text(200).min(1, 'name is required');

/** POST and PUT (PUT replaces: omitted fields go back to their defaults). */
export const agentBody = z.object({ name, ...fields }).partial({
  description: true,
  goal: true,
  systemPrompt: true,
  icon: true,
  modelTier: true,
  enabled: true,
  permissions: true,
});
export type AgentBody = z.infer<typeof agentBody>;
/** PATCH: only the given fields change; permissions merge key by key. */
export const agentPatchBody = z.object({ name, ...fields }).partial();
export type AgentPatch = z.infer<typeof agentPatchBody>;

export const agentPermissionsView = z.object({
  trustLevel: z.string().describe('how far the agent may act on its own (default suggest)'),
  allowedModules: z.array(z.string()),
  webAccess: z.boolean(),
  maxActionsPerRun: z.number().int(),
  maxDailyActions: z.number().int(),
});

export const agentView = z.object({
  ...recordViewFields,
  name: z.string(),
  description: z.string().nullable(),
  goal: z.string().nullable(),
  systemPrompt: z.string().nullable(),
  icon: z.string().nullable(),
  modelTier: z.enum(MODEL_TIERS),
  enabled: z.boolean(),
  permissions: agentPermissionsView,
  createdBy: idView,
});
export type AgentView = z.infer<typeof agentView>;
