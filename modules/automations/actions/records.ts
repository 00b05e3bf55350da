/**
 * Record actions: update_record, create_record and the legacy create_lead/deal/contact,
 * move_deal_stage, list membership and owner changes. Values are validated with the same zod
 * schemas as the REST bodies and written through the domain services, so their events fire.
 */
import type { z } from 'zod';
import { createLeadBody, updateLeadBody, createLead, updateLead } from '../../leads';
import { assertUsers } from '../../timeline';
import {
  createCompany,
  createCompanyBody,
  getCompany,
  serializeCompany,
  updateCompany,
  updateCompanyBody,
  type ImageResolver,
} from '../../companies';
import { addToList, getList, removeFromList } from '../../lists';
import { emit } from '../../../platform/outbox/emit';
import { applyPatch } from '../../../platform/shared/changes';
import { issuesOf } from '../../../platform/shared/zod-kit';
import { createDeal, createDealBody, moveDeal, updateDeal, updateDealBody } from '../../deals';
import {
  createPerson,
  createPersonBody,
  getPerson,
  serializePerson,
  updatePerson,
  updatePersonBody,
} from '../../people';
import { createRecordOf, findObjectByIdOrSlug, loadRecordForAutomation, updateRecordOf } from '../../custom-objects';
import {
  fail,
  recordIdOf,
  requireTrigger,
  triggerRecord,
  type ActionEnv,
  type ActionHandler,
  type RecordKind,
} from './types';

const noImages: ImageResolver = async () => fail('image fields (avatar, logoUrl) cannot be set by automations');

/** Validates `value` with a REST body schema; failures name the action field. */
function parseBody<S extends z.ZodType>(schema: S, value: unknown, base: string): z.infer<S> {
  const issues = issuesOf(schema, value, base);
  if (issues.length) fail(issues.map((i) => `${i.path}: ${i.error}`).join('; '));
  return schema.parse(value) as z.infer<S>;
}

const KIND_OF_TYPE: Record<string, RecordKind | undefined> = {
  lead: 'lead',
  person: 'person',
  company: 'company',
  deal: 'deal',
};

function targetOf(env: ActionEnv, recordType: string, action: string): { kind: RecordKind; id: string } {
  if (recordType === 'trigger') return requireTrigger(env.input.context, action);
  const kind = KIND_OF_TYPE[recordType] ?? fail(`${action}: unknown recordType ${recordType}`);
  const id =
    recordIdOf(env.input.context, kind) ??
    fail(`${action}: this run has no ${kind} (from the trigger or a lookup) to update`);
  return { kind, id };
}

interface FieldUpdate {
  fieldKey: string;
  value: unknown;
  isCustomField?: boolean;
}

export const updateRecordAction: ActionHandler<{ recordType: string; fieldUpdates: FieldUpdate[] }> = {
  kind: 'crm',
  describe: (c) => `would update ${c.recordType} fields ${c.fieldUpdates.map((f) => f.fieldKey).join(', ')}`,
  async run(env, c) {
    if (c.recordType === 'custom_object') return updateCustomRecord(env, c.fieldUpdates);
    const { kind, id } = targetOf(env, c.recordType, 'update_record');
    const body: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    for (const f of c.fieldUpdates) {
      const key = f.fieldKey.replace(/^customFields\./, '');
      if (f.isCustomField || f.fieldKey.startsWith('customFields.')) custom[key] = f.value;
      else body[key] = f.value;
    }
    if (Object.keys(custom).length) body.customFields = custom;
    const base = 'config.fieldUpdates';
    const opts = { preview: false } as const;
    let record: Record<string, unknown>;
    if (kind === 'lead')
      record = (await updateLead(env.ctx, id, parseBody(updateLeadBody.strict(), body, base), opts)) as Record<
        string,
        unknown
      >;
    else if (kind === 'deal')
      record = (await updateDeal(env.ctx, id, parseBody(updateDealBody.strict(), body, base), opts)) as Record<
        string,
        unknown
      >;
    else if (kind === 'company')
      record = (await updateCompany(env.ctx, id, parseBody(updateCompanyBody.strict(), body, base), {
        ...opts,
        images: noImages,
      })) as Record<string, unknown>;
    else
      record = (await updatePerson(env.ctx, id, parseBody(updatePersonBody.strict(), body, base), {
        ...opts,
        images: noImages,
      })) as Record<string, unknown>;
    return {
      output: { recordType: kind, recordId: id, updated: Object.keys(body) },
      contextPatch: { [kind]: { ...(env.input.context[kind] as object), ...record } },
    };
  },
};

/** update_record on the custom record of the run (trigger, fan-out match or lookup): field slugs as fieldKey. */
async function updateCustomRecord(env: ActionEnv, updates: FieldUpdate[]) {
  // The trigger's (or fan-out match's) record, else the latest CustomObjectRecord lookup match.
  const lookups = Object.values(
    (env.input.context.lookup ?? {}) as Record<string, { _id?: unknown; object?: unknown; customObjectId?: unknown }>,
  );
  const current =
    (env.input.context.custom_record as { _id?: unknown; object?: unknown } | undefined) ??
    lookups.reverse().find((l) => typeof l?.customObjectId === 'string' && typeof l._id === 'string');
  const id = typeof current?._id === 'string' ? current._id : null;
  if (!id || typeof current?.object !== 'string')
    return fail(
      'update_record: this run has no custom object record (from a custom_object trigger or a CustomObjectRecord lookup) to update',
    );
  const body = Object.fromEntries(updates.map((f) => [f.fieldKey.replace(/^(customFields|data)\./, ''), f.value]));
  await updateRecordOf(env.ctx, current.object, id, body, noImages);
  const view = (await loadRecordForAutomation(env.em, id))?.view ?? {};
  return {
    output: { recordType: 'custom_object', recordId: id, object: current.object, updated: Object.keys(body) },
    contextPatch: { custom_record: view },
  };
}

type CreateConfig = {
  recordType: string;
  fieldValues: Record<string, unknown>;
  customFields: { name: string; value: unknown }[];
  customObjectId?: string;
};

async function create(env: ActionEnv, kind: RecordKind, body: Record<string, unknown>, base: string): Promise<string> {
  const opts = { preview: false } as const;
  let record: Record<string, unknown>;
  if (kind === 'lead')
    record = (await createLead(env.ctx, parseBody(createLeadBody, body, base), opts)) as Record<string, unknown>;
  else if (kind === 'deal')
    record = (await createDeal(env.ctx, parseBody(createDealBody, body, base), opts)) as Record<string, unknown>;
  else if (kind === 'company')
    record = (await createCompany(env.ctx, parseBody(createCompanyBody, body, base), {
      ...opts,
      images: noImages,
    })) as Record<string, unknown>;
  else
    record = (await createPerson(env.ctx, parseBody(createPersonBody, body, base), {
      ...opts,
      images: noImages,
    })) as Record<string, unknown>;
  return record._id as string;
}

export const createRecordAction: ActionHandler<CreateConfig> = {
  kind: 'crm',
  describe: (c) => `would create a ${c.recordType} with ${Object.keys(c.fieldValues).join(', ') || 'no fields'}`,
  async run(env, c) {
    if (c.recordType === 'custom_object') {
      const object =
        (await findObjectByIdOrSlug(env.em, c.customObjectId ?? '')) ??
        fail(`create_record: no custom object ${c.customObjectId ?? ''} in this workspace`);
      const values = { ...c.fieldValues, ...Object.fromEntries(c.customFields.map((f) => [f.name, f.value])) };
      const created = await createRecordOf(env.ctx, object.slug, values, noImages);
      const id = String(created._id);
      return {
        output: { recordType: 'custom_object', recordId: id, object: object.slug },
        contextPatch: { custom_record: (await loadRecordForAutomation(env.em, id))?.view ?? created },
      };
    }
    const kind = KIND_OF_TYPE[c.recordType] ?? fail(`create_record: unknown recordType ${c.recordType}`);
    const body: Record<string, unknown> = { ...c.fieldValues };
    if (c.customFields.length) body.customFields = Object.fromEntries(c.customFields.map((f) => [f.name, f.value]));
    const id = await create(env, kind, body, 'config.fieldValues');
    return { output: { recordType: kind, recordId: id } };
  },
};

/** A deprecated create_lead / create_deal / create_contact action: its config becomes the new record's body. */
function legacyCreateAction<C>(
  kind: RecordKind,
  describe: (c: C) => string,
  bodyOf: (c: C) => Record<string, unknown>,
): ActionHandler<C> {
  return {
    kind: 'crm',
    describe,
    async run(env, c) {
      const id = await create(env, kind, bodyOf(c), 'config');
      return { output: { recordType: kind, recordId: id } };
    },
  };
}

export const createLeadAction = legacyCreateAction<{ title: string; email?: string; phone?: string; status?: string }>(
  'lead',
  (c) => `would create a lead "${c.title}"`,
  (c) => ({ title: c.title, email: c.email || undefined, phone: c.phone || undefined, status: c.status || undefined }),
);

export const createDealAction = legacyCreateAction<{
  title: string;
  value?: number;
  flowRef?: string;
  stageId?: string | number;
}>(
  'deal',
  (c) => `would create a deal "${c.title}"`,
  (c) => ({
    title: c.title,
    value: c.value,
    flowId: c.flowRef || undefined,
    stageId: c.stageId === undefined || c.stageId === '' ? undefined : String(c.stageId),
  }),
);

export const createContactAction = legacyCreateAction<{ firstName: string; lastName?: string; email?: string }>(
  'person',
  (c) => `would create a person "${[c.firstName, c.lastName].filter(Boolean).join(' ')}"`,
  (c) => ({
    firstName: c.firstName,
    lastName: c.lastName || undefined,
    ...(c.email ? { emails: [{ email: c.email }] } : {}),
  }),
);

export const moveDealStageAction: ActionHandler<{ stageId: string | number; flowRef?: string; dealId?: string }> = {
  kind: 'crm',
  describe: (c) => `would move the deal to stage ${c.stageId}`,
  async run(env, c) {
    const dealId =
      c.dealId?.trim() ||
      recordIdOf(env.input.context, 'deal') ||
      fail('move_deal_stage: no dealId and no deal from the trigger or a lookup');
    const deal = await moveDeal(env.ctx, dealId, { stageId: String(c.stageId), flowId: c.flowRef || undefined });
    return {
      output: { dealId, stageId: deal.stageId, flowId: deal.flowId },
      contextPatch: { deal: { ...(env.input.context.deal as object), ...deal } },
    };
  },
};

const LIST_KINDS: Record<string, RecordKind> = { lead: 'lead', person: 'person', company: 'company', deal: 'deal' };

function listAction(op: 'add' | 'remove'): ActionHandler<{ listId: string }> {
  return {
    kind: 'crm',
    describe: (c) => `would ${op} the record ${op === 'add' ? 'to' : 'from'} list ${c.listId}`,
    async run(env, c) {
      if (!/^[0-9a-f]{24}$/.test(c.listId)) fail(`listId: no list with id ${c.listId}`);
      const list = await getList(env.ctx, c.listId);
      const kind =
        LIST_KINDS[list.entityType] ?? fail(`lists of ${list.entityType} records are not supported by ${op}_from_list`);
      const id =
        recordIdOf(env.input.context, kind) ??
        fail(`list ${list.name} holds ${list.entityType} records; this run has no ${kind}`);
      const result =
        op === 'add' ? await addToList(env.ctx, c.listId, [id]) : await removeFromList(env.ctx, c.listId, [id]);
      return { output: { listId: c.listId, recordId: id, ...result } };
    },
  };
}
export const addToListAction = listAction('add');
export const removeFromListAction = listAction('remove');

/** Owner change through the record's service (lead, deal) or as the same update + event (person, company). */
async function setOwner(
  env: ActionEnv,
  target: { kind: RecordKind; id: string },
  ownerId: string,
): Promise<Record<string, unknown>> {
  await assertUsers(env.ctx, 'ownerId', [ownerId]);
  const opts = { preview: false } as const;
  if (target.kind === 'lead')
    return (await updateLead(env.ctx, target.id, { ownerId }, opts)) as Record<string, unknown>;
  if (target.kind === 'deal')
    return (await updateDeal(env.ctx, target.id, { ownerId }, opts)) as Record<string, unknown>;
  const entity = target.kind === 'company' ? await getCompany(env.ctx, target.id) : await getPerson(env.ctx, target.id);
  const changes = applyPatch(entity as { ownerId?: string | null }, { ownerId });
  if (Object.keys(changes).length) {
    entity.updatedAt = new Date();
    const view = target.kind === 'company' ? serializeCompany(entity as never) : serializePerson(entity as never);
    emit(env.ctx, {
      type: `${target.kind}_updated`,
      entityType: target.kind,
      entityId: target.id,
      payload: target.kind === 'company' ? { company: view, changes } : { person: view, changes },
    });
    await env.em.flush();
  }
  return target.kind === 'company' ? serializeCompany(entity as never) : serializePerson(entity as never);
}

export const assignUserAction: ActionHandler<{ assignmentType: string; userId?: string; groupId?: string }> = {
  kind: 'crm',
  describe: (c) => `would make user ${c.userId ?? c.groupId} the owner of the trigger record`,
  async run(env, c) {
    if (!c.userId?.trim()) fail('assign_user: user groups are not available; set userId');
    if (c.assignmentType !== 'owner')
      fail(`assign_user: assignmentType ${c.assignmentType} is not supported (only owner)`);
    const target = requireTrigger(env.input.context, 'assign_user');
    await setOwner(env, target, c.userId!.trim());
    return { output: { recordType: target.kind, recordId: target.id, ownerId: c.userId } };
  },
};

export const setAccessAction: ActionHandler<{
  recordType: string;
  accessState: { owner?: string | null; visibility?: string; shares?: unknown[] };
}> = {
  kind: 'crm',
  describe: (c) => `would set the owner of the ${c.recordType} record to ${c.accessState.owner}`,
  async run(env, c) {
    const a = c.accessState;
    // All or nothing: refuse before changing the owner when a part cannot be applied.
    if (a.visibility !== undefined || (a.shares !== undefined && a.shares.length > 0))
      fail('set_access: record visibility and shares are not available yet; only accessState.owner can be set');
    if (!a.owner) fail('set_access: accessState.owner is required (a user id)');
    const target =
      c.recordType === 'trigger'
        ? requireTrigger(env.input.context, 'set_access')
        : (triggerRecord({ [c.recordType]: env.input.context[c.recordType] }) ??
          fail(`set_access: this run has no ${c.recordType}`));
    await setOwner(env, target, a.owner!);
    return { output: { recordType: target.kind, recordId: target.id, owner: a.owner } };
  },
};
