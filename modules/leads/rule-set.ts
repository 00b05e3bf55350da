import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { conflict, DomainError } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { applyPatch } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { getRecord } from '../../platform/shared/record-service';

/** Rules are evaluated, and listed, by sortOrder, then creation. */
export const RULE_ORDER = { sortOrder: 'asc', createdAt: 'asc', _id: 'asc' } as const;

interface Rule {
  _id: string;
  name: string;
  updatedAt: Date;
}

/**
 * What the lead routing and lead scoring rule sets share: the list in evaluation order, a rule or 404, a name unique
 * in the workspace, at most `max` rules, and one `event` on the workspace record per change ({ action, rule }).
 */
export function ruleSet<R extends Rule, V extends Record<string, unknown>>(spec: {
  entity: EntityName<R>;
  /** "lead routing rule": the 404, conflict and limit messages name it. */
  what: string;
  max: number;
  event: 'lead_routing_rules_changed' | 'lead_scoring_rules_changed';
  serialize: (rule: R) => V;
}) {
  const { entity, what, max, serialize } = spec;
  const changed = (ctx: Ctx, action: 'created' | 'updated' | 'deleted', rule: Record<string, unknown>): void => {
    // One event per workspace record: the outbox delivers them in order (scoring rescores serially).
    emit(ctx, {
      type: spec.event,
      entityType: 'workspace',
      entityId: ctx.actor.workspaceId,
      payload: { action, rule },
    });
  };
  const get = (ctx: Ctx, id: string): Promise<R> => getRecord(ctx, entity, id, what);
  return {
    get,
    async list(ctx: Ctx, page: PageRequest): Promise<{ items: V[]; total: number }> {
      const { items, total } = await findPage(ctx.em, entity, {} as FilterQuery<R>, page, RULE_ORDER);
      return { items: items.map(serialize), total };
    },
    async assertNameFree(ctx: Ctx, name: string, exceptId?: string): Promise<void> {
      const other = await ctx.em.findOne(entity, { name, ...(exceptId ? { _id: { $ne: exceptId } } : {}) } as never);
      if (other) throw conflict(`a ${what} named "${name}" already exists`);
    },
    /** A new rule must fit under the workspace's limit. */
    async assertRoom(ctx: Ctx): Promise<void> {
      if ((await ctx.em.count(entity, {} as FilterQuery<R>)) >= max)
        throw new DomainError('invalid_state', `a workspace can have at most ${max} ${what}s; delete or reuse one`);
    },
    /** The created rule's event and flush; answers its view. */
    async created(ctx: Ctx, rule: R): Promise<V> {
      changed(ctx, 'created', serialize(rule));
      await ctx.em.flush();
      return serialize(rule);
    },
    /** Applies the patch; when anything changed, stamps updatedAt, the event with the changes, the flush. */
    async update(ctx: Ctx, rule: R, patch: Partial<R>): Promise<V> {
      const changes = applyPatch(rule, patch);
      if (Object.keys(changes).length) {
        rule.updatedAt = new Date();
        changed(ctx, 'updated', { ...serialize(rule), changes });
        await ctx.em.flush();
      }
      return serialize(rule);
    },
    async remove(ctx: Ctx, id: string): Promise<void> {
      const rule = await get(ctx, id);
      ctx.em.remove(rule);
      changed(ctx, 'deleted', serialize(rule));
      await ctx.em.flush();
    },
  };
}
