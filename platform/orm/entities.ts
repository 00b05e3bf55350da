import { MetricSeries } from '../../modules/metrics';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { Image } from '../../modules/images';
import { ImportRun } from '../../modules/imports';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { ApiKey, RateLimitWindow, Workspace } from '../../modules/workspaces';
import { ExtensionContribution, ExtensionObservation } from '../../modules/extension';
import { RESOURCE_ENTITIES } from '../resources';

/**
 * Tenant entities that belong to no resource manifest (yet): rows without a GET /:id of their own.
 * The resource kinds' entities come from their manifests (domain/resources.ts).
 */
const supportingTenantEntities = [Image, ImportRun, MetricSeries, ExtensionContribution, ExtensionObservation];

/** Rows of these entities belong to one workspace; the `tenant` filter guards every read of them. */
export const tenantEntities = [
  ...(RESOURCE_ENTITIES as unknown as typeof supportingTenantEntities),
  ...supportingTenantEntities,
];

/** Global rows: looked up before a workspace is known (auth) or served across workspaces (outbox). */
export const globalEntities = [Workspace, ApiKey, OutboxEvent, RateLimitWindow, IdempotencyKey];

export const allEntities = [...globalEntities, ...tenantEntities];
