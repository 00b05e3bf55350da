import type { Ctx } from '../../platform/context';
import { createdEvent, emitCreate, updatedEvent, updateWithEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { Agent } from './agent.entity';
import {
  DEFAULT_PERMISSIONS,
  type AgentBody,
  type AgentPatch,
  type AgentPermissions,
  type AgentView,
} from './agents.schemas';
import { deleteById, getRecord } from '../../platform/shared/record-service';

const FIELDS = [
  '_id',
  'name',
  'description',
  'goal',
  'systemPrompt',
  'icon',
  'modelTier',
  'enabled',
  'permissions',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;
export const serializeAgent = (a: Agent): AgentView => plainOf(a, FIELDS);

const withDefaults = (
  p: Partial<AgentPermissions> | undefined,
  base: AgentPermissions = DEFAULT_PERMISSIONS,
): AgentPermissions => ({
  ...base,
  ...Object.fromEntries(Object.entries(p ?? {}).filter(([, v]) => v !== undefined)),
});

/** Every field of a POST/PUT body, omitted ones at their defaults (PUT replaces). */
const fullFields = (input: AgentBody) => ({
  name: input.name,
  description: input.description ?? null,
  goal: input.goal ?? null,
  systemPrompt: input.systemPrompt ?? null,
  icon: input.icon ?? null,
  modelTier: input.modelTier ?? 'balanced',
  enabled: input.enabled ?? true,
  permissions: withDefaults(input.permissions),
});

export function getAgent(ctx: Ctx, id: string): Promise<Agent> {
  return getRecord(ctx, Agent, id, 'agent');
}

export async function listAgents(ctx: Ctx, query: PageRequest & { enabled?: boolean }) {
  const where = query.enabled === undefined ? {} : { enabled: query.enabled };
  const { items, total } = await findPage(ctx.em, Agent, where, query, { createdAt: 'desc' });
  return { items: items.map(serializeAgent), total };
}

export async function createAgent(ctx: Ctx, input: AgentBody) {
  const agent = createRecord(ctx, Agent, { ...fullFields(input), createdBy: ctx.actor.userId });
  await emitCreate(ctx, agent, createdEvent('agent', { agent: serializeAgent(agent) }));
  return serializeAgent(agent);
}

async function change(ctx: Ctx, agent: Agent, patch: Record<string, unknown>) {
  await updateWithEvent(
    ctx,
    agent,
    patch as never,
    updatedEvent('agent', (changes) => ({ agent: serializeAgent(agent), changes })),
  );
  return serializeAgent(agent);
}

/** PUT: a full replacement; omitted optional fields return to their defaults. */
export async function replaceAgent(ctx: Ctx, id: string, input: AgentBody) {
  const agent = await getAgent(ctx, id);
  return change(ctx, agent, fullFields(input));
}

/** PATCH: only the given fields; `permissions` merges key by key. */
export async function patchAgent(ctx: Ctx, id: string, input: AgentPatch) {
  const agent = await getAgent(ctx, id);
  const { permissions, ...rest } = input;
  return change(ctx, agent, {
    ...rest,
    ...(permissions ? { permissions: withDefaults(permissions, agent.permissions) } : {}),
  });
}

export const deleteAgent = deleteById(getAgent, 'agent', (agent) => ({ agent: serializeAgent(agent) }));
