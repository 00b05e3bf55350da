import type { EntityManager } from '@mikro-orm/postgresql';
import { byId, plainRecord } from '../../platform/shared/record-view';
import type { Deal } from './deal.entity';
import { FlowStage } from './flow.entity';

/** A deal in an automation context (the deal namespace): the record with its stage title and type. */
export async function dealContext(em: EntityManager, deal: Deal): Promise<Record<string, unknown>> {
  const stage = deal.stageId ? await byId(em, FlowStage, deal.stageId) : null;
  return { ...plainRecord(deal), stage: stage?.title ?? null, stageType: stage?.type ?? null };
}
