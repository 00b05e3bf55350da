import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import type { ResourceEntity } from '../shared/resource';

/**
 * The ORM's entities, given by the composition (app/orm.ts: every module's manifests and `entities`) and platform's
 * own global rows.
 */
export interface OrmEntities {
  /** Rows of these entities belong to one workspace; the `tenant` filter guards every read of them. */
  readonly tenant: readonly ResourceEntity[];
  /** Global rows: looked up before a workspace is known (auth) or served across workspaces (outbox). */
  readonly global: readonly ResourceEntity[];
}

/** Platform's global rows (the outbox and idempotency keys); the modules' come from their declarations. */
export const platformGlobalEntities: readonly ResourceEntity[] = [OutboxEvent, IdempotencyKey];
