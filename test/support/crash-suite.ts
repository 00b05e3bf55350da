// The set-up of the files that kill a mail-sending worker mid-work: a local SMTP server, the engine harness
// with its messaging deps and one tenant. The work runs on a worker in a process of its own
// (support/worker-process.ts), which a test kills -9 and replaces (another child or the harness's worker).
import type { ChildProcess } from 'node:child_process';
import { createMessagingDeps } from '../../modules/email/messaging-deps';
import { startSmtp, type LocalSmtp } from '../unit/messaging/local-smtp';
import type { Tenant } from './app';
import { startEngineHarness, type EngineHarness } from './automation-engine';
import { startWorkerProcess } from './worker-process';

export interface MailCrashSuite {
  h: EngineHarness;
  t: Tenant;
  /** The server the mail goes to; it keeps what it received. */
  smtp: LocalSmtp;
  /** Starts the child worker on the harness's task queue and database, with the mail settings and `env`. */
  startChild(env?: NodeJS.ProcessEnv): Promise<void>;
  /** Kills the child worker -9 and resolves once it has exited. */
  killChild(): Promise<void>;
}

/**
 * Before the file's tests: starts the SMTP server, the harness (mail to that server from crm@example.test,
 * `env` over that) with its workflows bundled (so that restarts are worker starts, not bundle builds) and
 * no worker running, and the tenant named `tenant`; hands them to `set`. After them: kills a child left
 * running and stops all.
 */
export function withMailCrashEngine(
  tenant: string,
  env: Record<string, string>,
  set: (s: MailCrashSuite) => void,
): void {
  let smtp: LocalSmtp | undefined;
  let h: EngineHarness | undefined;
  let child: ChildProcess | null = null;
  const mailEnv = () => ({ SMTP_URL: `smtp://127.0.0.1:${smtp!.port}`, MAIL_FROM: 'CRM <crm@example.test>', ...env });
  beforeAll(async () => {
    smtp = await startSmtp();
    const harness = await startEngineHarness(mailEnv());
    h = harness;
    harness.messaging = createMessagingDeps(harness.app.config);
    await harness.startWorker();
    await harness.stopWorker();
    set({
      h: harness,
      t: await harness.app.tenant(tenant),
      smtp,
      startChild: async (extra = {}) => {
        child = await startWorkerProcess({
          ...mailEnv(),
          TEMPORAL_TASK_QUEUE: harness.taskQueue,
          DATABASE_URL: harness.app.config.databaseUrl,
          ...extra,
        });
      },
      killChild: async () => {
        const c = child!;
        child = null;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        await exited;
      },
    });
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await h?.close();
    h?.messaging?.close();
    await smtp?.close();
  }, 90_000);
}
