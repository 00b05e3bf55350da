import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { SequenceEnroller } from '../automations';
import { enrollEntities } from './enroll.service';
import type { SequenceEngineDeps, SequenceWorkflowPort } from './ports';

/**
 * How automations' add_to_sequence enrolls (their SequenceEnroller): the API's enrollment on the worker's sequence
 * port; none in a process without that port (the action then fails clearly). `deps`: the worker's activity deps.
 */
export function sequenceEnroller(deps: {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  sequenceWorkflows?: SequenceWorkflowPort;
}): SequenceEnroller | undefined {
  if (!deps.sequenceWorkflows) return undefined;
  const engine: SequenceEngineDeps = {
    orm: deps.orm,
    log: deps.log.child({ component: 'sequences' }),
    workflows: deps.sequenceWorkflows,
    waitScale: deps.config.sequenceWaitScale,
    stepTimeoutMs: deps.config.sequenceStepTimeoutMs,
  };
  return (ctx, sequenceId, entityType, entityIds, opts) =>
    enrollEntities(ctx, engine, sequenceId, entityType, entityIds, opts);
}
