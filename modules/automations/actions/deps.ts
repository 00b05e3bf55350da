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
import type { SequenceEngineDeps } from '../../sequences';

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
  sequences?: SequenceEngineDeps;
}
