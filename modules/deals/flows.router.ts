import type { RouteFactory } from '../../platform/http/app-deps';
import * as flows from './flows.service';
import { createStage, deleteStage, updateStage } from './flow-stages.service';
import { acknowledged, created, ok, paged, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { idParams, pageQuery } from '../../platform/shared/schemas';
import {
  createFlowBody,
  createStageBody,
  flowStageView,
  flowView,
  stageIdInput,
  updateFlowBody,
  updateStageBody,
} from './flows.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Flows (pipelines)';
const resources = { id: 'flow' };

export const flowsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/flows',
    section,
    access: read,
    query: pageQuery(),
    summary:
      'List flows with their stages (oldest first). A workspace without flows gets the default "Sales pipeline" here.',
    response: envelopes.list(flowView),
    handler: async ({ ctx, query }) => {
      const { items, total } = await flows.listFlows(ctx, query);
      return paged(items, { ...query, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/flows',
    section,
    access: write,
    body: createFlowBody,
    successStatus: 201,
    summary:
      'Create a flow, optionally with stages. The first flow, or one sent with isDefault: true, becomes the default.',
    response: envelopes.data(flowView),
    handler: async ({ ctx, body }) => created(await flows.createFlow(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/flows/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one flow with its stages ordered by `order`.',
    response: envelopes.data(flowView),
    handler: async ({ ctx, params }) => ok(await flows.getFlowView(ctx, params.id)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/flows/:id',
    section,
    access: write,
    params: idParams,
    body: updateFlowBody,
    resources,
    summary: 'Update title, description or isDefault (partial). Stages change through /flows/:id/stages.',
    response: envelopes.data(flowView),
    handler: async ({ ctx, params, body }) => ok(await flows.updateFlow(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/flows/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a flow and its stages; 409 while it has deals or when it is the last flow.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await flows.deleteFlow(ctx, params.id);
      return acknowledged();
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/flows/:id/stages',
    section,
    access: write,
    params: idParams,
    body: createStageBody,
    resources,
    successStatus: 201,
    summary: 'Add a stage (title required; order defaults to after the last stage; type open|won|lost).',
    response: envelopes.data(flowStageView),
    handler: async ({ ctx, params, body }) => created(await createStage(ctx, params.id, body)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/flows/:id/stages',
    section,
    access: write,
    params: idParams,
    body: updateStageBody,
    resources,
    summary:
      'Update a stage named by `id` (title, order, type, probability); the type cannot change while deals are in it (409).',
    response: envelopes.data(flowStageView),
    handler: async ({ ctx, params, body }) => ok(await updateStage(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/flows/:id/stages',
    section,
    access: write,
    params: idParams,
    query: stageIdInput.partial(),
    resources,
    summary: 'Delete the stage named by `id` (body or ?id=); 409 while deals are in it.',
    response: envelopes.ok,
    handler: async ({ ctx, params, query, koa }) => {
      await flows.getFlow(ctx, params.id);
      const { id } = stageIdInput.parse({ id: query.id ?? (koa.request.body as { id?: unknown } | undefined)?.id });
      await deleteStage(ctx, params.id, id);
      return acknowledged();
    },
  }),
];
