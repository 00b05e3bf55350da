import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as agents from './agents.service';
import { agentBody, agentPatchBody, agentView } from './agents.schemas';
import { boolParam, pageParams } from '../../platform/shared/list-query';
import { crudRoutes, envelopes, viewOf } from '../../platform/http/crud';
import { ok, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { read, write } from '../../platform/http/access';

const section = 'Agents';
const resources = { id: 'agent' };
const listQuery = z.object({ ...pageParams(100), enabled: boolParam.optional() });
const FIELDS =
  'name (req), description, goal, systemPrompt, icon, modelTier (`fast`, `balanced` default, `thorough`), enabled (default true), permissions { trustLevel (default `suggest`), allowedModules [], webAccess (false), maxActionsPerRun (10), maxDailyActions (100) }';

export const agentsRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/agents',
    section,
    kind: 'agent',
    access: { read, write },
    schemas: { list: listQuery, create: agentBody, update: agentBody, view: agentView },
    service: {
      list: agents.listAgents,
      create: agents.createAgent,
      get: viewOf(agents.getAgent, agents.serializeAgent),
      update: agents.replaceAgent,
      remove: agents.deleteAgent,
    },
    summaries: {
      list: 'AI agents (newest first; filter `enabled`). Agents have no schedule of their own; automation actions start them.',
      create: `Create an agent: ${FIELDS}.`,
      get: 'One agent.',
      update: 'Replace an agent: `name` required; omitted fields return to their defaults.',
      remove: 'Delete an agent (and its runs, once agent runs are recorded).',
    },
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
    response: envelopes.data(agentView),
    handler: async ({ ctx, params, body }) => ok(await agents.patchAgent(ctx, params.id, body)),
  }),
];
