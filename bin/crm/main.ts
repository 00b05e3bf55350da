import type { MikroORM } from '@mikro-orm/postgresql';
import { DomainError } from '../../platform/errors';
import { CliUsageError, parseCommandLine, usage } from './args';
import type { CommandOutput, Runner } from './commands';
import { redactUrl } from './redact';

// Contract relied on by external tooling: with --json the last stdout line is exactly one JSON
// object (the result, or {"error", "code"}); messages go to stderr. Exit 0 ok, 1 failure, 2 usage.

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: progress bars redraw in place. */
  stderrIsTTY?: boolean;
}

function describe(err: unknown, env: NodeJS.ProcessEnv): { message: string; code: string; exit: number } {
  if (err instanceof CliUsageError) return { message: err.message, code: 'usage', exit: EXIT_USAGE };
  if (err instanceof DomainError)
    return { message: err.message, code: err.code, exit: err.code === 'validation' ? EXIT_USAGE : EXIT_FAILURE };
  const message = redactUrl(err instanceof Error ? err.message : String(err), env.DATABASE_URL);
  return { message: message || 'unexpected error', code: 'internal', exit: EXIT_FAILURE };
}

class Output {
  constructor(
    private readonly io: CliIo,
    private readonly json: boolean,
  ) {}

  success(out: CommandOutput): number {
    this.io.stdout((this.json ? JSON.stringify(out.result) : out.human) + '\n');
    return EXIT_OK;
  }

  help(): number {
    this.io.stdout((this.json ? JSON.stringify({ usage: usage() }) : usage()) + '\n');
    return EXIT_OK;
  }

  fail(err: unknown): number {
    const { message, code, exit } = describe(err, this.io.env);
    this.io.stderr(`crm: error: ${message}\n`);
    if (exit === EXIT_USAGE) this.io.stderr('Run "npm run -s crm -- help" for usage.\n');
    if (this.io.env.CRM_DEBUG && err instanceof Error && !(err instanceof CliUsageError)) {
      this.io.stderr(`${redactUrl(err.stack ?? '', this.io.env.DATABASE_URL)}\n`);
    }
    if (this.json) this.io.stdout(JSON.stringify({ error: message, code }) + '\n');
    return exit;
  }
}

/** Runs one command line and returns the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = new Output(io, argv.includes('--json'));
  let run: Runner;
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'help') return out.help();
    // Flags are validated before any connection, so usage errors answer fast and offline.
    run = parsed.command.prepare(parsed.values);
  } catch (err) {
    if (argv.length === 0) io.stderr(usage() + '\n\n');
    return out.fail(err);
  }
  // Without DATABASE_URL the CLI talks to the database of a running `npm start` stack.
  const url = io.env.DATABASE_URL || devStackDatabaseUrl(io.env);
  let orm: MikroORM | undefined;
  try {
    // Loaded lazily: the driver and the ORM cost a few hundred milliseconds to load.
    const { openOrm } = await import('./orm');
    orm = await openOrm(url);
    return out.success(
      await run(orm.em.fork(), { env: io.env, stderr: io.stderr, stderrIsTTY: io.stderrIsTTY ?? false }),
    );
  } catch (err) {
    return out.fail(err);
  } finally {
    await orm?.close(true).catch(() => undefined);
  }
}

/**
 * The embedded Postgres that `npm start` runs (infra/stack.ts dev profile: port CRM_PG_PORT or 54329, database crm).
 */
export function devStackDatabaseUrl(env: NodeJS.ProcessEnv): string {
  return `postgres://crm:crm@127.0.0.1:${env.CRM_PG_PORT || 54329}/crm`;
}
