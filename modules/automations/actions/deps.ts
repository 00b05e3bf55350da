/**
 * What every automation activity and action handler may use (its own file, so actions do not import the activity
 * module).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AiProvider } from '../../ai';
import type { EngineDeps } from '../engine/ports';
import type { AppConfig } from '../../../platform/config';
import type { Logger } from '../../../platform/logger';
import type { MessagingDeps } from '../../email';
import type { Ctx } from '../../../platform/context';
import type { SEQUENCE_ENTITY_TYPES } from '../action-config.schemas';

export interface AutomationActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Starts fan-out children and scheduled runs. */
  engine: EngineDeps;
  /** Built on first use, so a worker without SMTP/SMS/AI settings still starts (those steps fail clearly). */
  messaging: () => MessagingDeps | null;
  ai: () => AiProvider | null;
  /** Enrolls records for add_to_sequence (absent: that action fails clearly). */
  sequences?: SequenceEnroller;
}

/** A record type add_to_sequence enrolls. */
export type SequenceEntityType = Exclude<(typeof SEQUENCE_ENTITY_TYPES)[number], 'trigger'>;

/**
 * How add_to_sequence enrolls: the sequences module's enrollment (its `sequenceEnroller`), given by the composition
 * (app/modules.ts) because sequences build on automations and so cannot be imported by them.
 */
export type SequenceEnroller = (
  ctx: Ctx,
  sequenceId: string,
  entityType: SequenceEntityType,
  entityIds: string[],
  opts: { source: string; forceRestart: boolean; duplicateMode: 'block' | 'block_with_restart' },
) => Promise<
  { success: boolean; action?: 'enrolled' | 'restarted'; enrollmentId?: string; error?: string; code?: string }[]
>;
