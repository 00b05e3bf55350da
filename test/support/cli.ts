// In-process runs of the operator CLI (the same code bin/crm.ts runs, without a spawn per call) against the test
// database, with their output captured.
import { MikroORM } from '@mikro-orm/postgresql';
import { runCli } from '../../bin/crm/main';
import { ormConfig } from '../../app/orm';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `crm <args>` in-process with `env` (default: this process's) and captures what it prints. */
export async function runCrm(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env });
  return { code, stdout, stderr };
}

/** `crm <args> --json`: its parsed result; throws with what it printed when it exits non-zero. */
export async function runCrmJson(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<any> {
  const res = await runCrm([...args, '--json'], env);
  if (res.code !== 0) throw new Error(`crm ${args.join(' ')} exited ${res.code}: ${res.stderr}${res.stdout}`);
  return JSON.parse(res.stdout.trim());
}

/**
 * An ORM on the test database (its query log off), opened before the file's tests and handed to `set`, closed after
 * them (what a CLI test inspects and seeds).
 */
export function withTestOrm(set: (orm: MikroORM) => void): void {
  let orm: MikroORM | undefined;
  beforeAll(async () => {
    orm = await MikroORM.init(ormConfig(process.env.DATABASE_URL as string, { logger: () => undefined }));
    set(orm);
  });
  afterAll(() => orm?.close(true));
}
