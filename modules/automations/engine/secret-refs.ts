/**
 * The activity side of "no secrets in Temporal" (see ../secrets.ts): a node whose data arrives
 * with SECRET_REF placeholders gets its data from the execution row's graph snapshot in Postgres,
 * i.e. the version the run started with, not the automation's current one.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../../platform/errors';
import { AutomationExecution } from '../automation.entity';
import { hasSecretRefs } from '../secrets';

export async function nodeDataWithSecrets(
  em: EntityManager,
  executionId: string,
  nodeId: string,
  data: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (!hasSecretRefs(data)) return data;
  const row = await em.findOne(AutomationExecution, { _id: executionId }, { fields: ['graph'] });
  const node = row?.graph.nodes.find((n) => n.id === nodeId);
  if (!node?.data)
    throw new DomainError('not_found', `node ${nodeId} of execution ${executionId} is missing from its stored graph`);
  return node.data as Record<string, unknown>;
}
