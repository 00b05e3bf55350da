/**
 * The contract of one automation action: how its effect is made idempotent (`kind`), what a test
 * run records instead of acting, and the effect itself. Handlers receive the config with
 * placeholders resolved and the spec's defaults filled in.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../../platform/context';
import { DomainError } from '../../../platform/errors';
import type { StepStatus } from '../automation.entity';
import type { Context, NodeActivityInput } from '../engine/types.pure';
import type { RecordType } from '../../../platform/shared/record-types';
import type { AutomationActivityDeps } from './deps';

export interface ActionEnv {
  /** Workspace-bound, events stamped with the execution (loop guard); in a transaction for `crm`. */
  em: EntityManager;
  ctx: Ctx;
  input: NodeActivityInput;
  deps: AutomationActivityDeps;
  now: Date;
  /** `${executionId}:${nodeId}`: the key outbound sends are deduplicated on. */
  idempotencyKey: string;
}

export interface ActionResult {
  output: unknown;
  contextPatch?: Context;
  /** Default completed; `skipped` for a conflict-policy skip or a test run. */
  status?: StepStatus;
}

export interface ActionHandler<C = Record<string, unknown>> {
  /**
   * crm: effect and step row commit in one transaction (a retry finds the step completed);
   * external: the provider call carries the idempotency key; fail: always a clear step error.
   */
  kind: 'crm' | 'external' | 'fail';
  /** One line for a test run's step log: what the action would have done. */
  describe(config: C): string;
  run(env: ActionEnv, config: C): Promise<ActionResult>;
}

/** An error no retry can fix (bad config, feature not available, provider not configured). */
export class PermanentActionError extends DomainError {
  constructor(message: string) {
    super('validation', message);
    this.name = 'PermanentActionError';
  }
}

export const fail = (message: string): never => {
  throw new PermanentActionError(message);
};

/** The CRM record types (domain/shared/record-types.ts); RECORD_KINDS is their precedence order here. */
export type RecordKind = RecordType;
export const RECORD_KINDS: readonly RecordKind[] = ['lead', 'person', 'company', 'deal'];

const idOf = (v: unknown): string | null => {
  const id = v && typeof v === 'object' ? (v as Record<string, unknown>)._id : undefined;
  return typeof id === 'string' && /^[0-9a-f]{24}$/.test(id) ? id : null;
};

/** The record of `kind` the context holds (person also as `contact`). */
export function recordIdOf(context: Context, kind: RecordKind): string | null {
  return idOf(context[kind]) ?? (kind === 'person' ? idOf(context.contact) : null);
}

/** The record the run is about: the trigger's (or fan-out match's), else the first CRM record in the context. */
export function triggerRecord(context: Context): { kind: RecordKind; id: string } | null {
  const system = (context.system ?? {}) as Record<string, unknown>;
  const t = String(system.entityType ?? '').toLowerCase();
  const kind = (t === 'people' || t === 'contact' ? 'person' : t) as RecordKind;
  if (RECORD_KINDS.includes(kind) && typeof system.entityId === 'string') return { kind, id: system.entityId };
  for (const k of ['lead', 'deal', 'person', 'company'] as const) {
    const id = recordIdOf(context, k);
    if (id) return { kind: k, id };
  }
  return null;
}

export function requireTrigger(context: Context, action: string): { kind: RecordKind; id: string } {
  return (
    triggerRecord(context) ??
    fail(`${action} needs a record (lead, person, company or deal) from the trigger or a lookup; this run has none`)
  );
}
