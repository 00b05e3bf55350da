import { validation } from '../errors';

/** A kanban stage of a fixed flow (projects, support tickets; task flows add a status): its id, title and place. */
export interface KanbanStage {
  id: number;
  title: string;
  order: number;
}

/**
 * 400 unless `stageId` is one of `stages`: "<field>: unknown <flow> stage <id>; valid: <ids in the given order>".
 * Returns the stage.
 */
export function stageById<S extends { id: number }>(
  stages: readonly S[],
  flow: string,
  field: string,
  stageId: number,
): S {
  const stage = stages.find((s) => s.id === stageId);
  if (!stage) {
    throw validation(`${field}: unknown ${flow} stage ${stageId}; valid: ${stages.map((s) => s.id).join(', ')}`, [
      { path: field, error: 'unknown stage' },
    ]);
  }
  return stage;
}
