import { z } from 'zod';
import type { RouteFactory } from '../app';
import * as agents from '../../domain/agents/agents.service';
import { agentBody, agentPatchBody } from '../../domain/agents/agents.schemas';
import { boolParam, pageParams } from '../../domain/shared/list-query';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Agents';
const resources = { id: 'agent' };
const listQuery = z.object({ ...pageParams(100), enabled: boolParam.optional() });
const FIELDS =
  'name (req), description, goal, systemPrompt, icon, modelTier (`fast`, `balanced` default, `thorough`), enabled (default true), permissions { trustLevel (default `suggest`), allowedModules [], webAccess (false), maxActionsPerRun (10), maxDailyActions (100) }';

export const agentsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/agents',
    section,
    access: read,
    query: listQuery,
    summary:
      'AI agents (newest first; filter `enabled`). Agents have no schedule of their own; automation actions start them.',
    handler: async ({ ctx, query }) => {
      const { items, total } = await agents.listAgents(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/agents',
    section,
    access: write,
    body: agentBody,
    successStatus: 201,
    summary: `Create an agent: ${FIELDS}.`,
    handler: async ({ ctx, body }) => created(await agents.createAgent(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/agents/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'One agent.',
    handler: async ({ ctx, params }) => ok(agents.serializeAgent(await agents.getAgent(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/agents/:id',
    section,
    access: write,
    params: idParams,
    body: agentBody,
    resources,
    summary: 'Replace an agent: `name` required; omitted fields return to their defaults.',
    handler: async ({ ctx, params, body }) => ok(await agents.replaceAgent(ctx, params.id, body)),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/agents/:id',
    section,
    access: write,
    params: idParams,
    body: agentPatchBody,
    resources,
    summary: 'Update the given fields only; `permissions` merges key by key.',
    handler: async ({ ctx, params, body }) => ok(await agents.patchAgent(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/agents/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete an agent (and its runs, once agent runs are recorded).',
    handler: async ({ ctx, params }) => {
      await agents.deleteAgent(ctx, params.id);
      return acknowledged();
    },
  }),
];
