/** The shape of one CLI command (its own file: command modules import it, the command list imports them). */
import type { EntityManager } from '@mikro-orm/postgresql';

/** What a command prints: `result` is the `--json` object, `human` the default text. */
export interface CommandOutput {
  result: Record<string, unknown>;
  human: string;
}

/** What a running command may use besides the database: env and stderr (messages, progress). */
export interface RunnerIo {
  env: NodeJS.ProcessEnv;
  stderr(text: string): void;
  stderrIsTTY: boolean;
}

/** Validated input bound to its action; runs only once the database is open. */
export type Runner = (em: EntityManager, io: RunnerIo) => Promise<CommandOutput>;

export interface Flag {
  name: string;
  value: string;
  required: boolean;
  description: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  flags: Flag[];
  /** Pure validation of the flags (throws DomainError 'validation'), before any connection. */
  prepare(values: Record<string, string | undefined>): Runner;
}
