// The set-up of the files that kill a worker mid-work: the engine harness with its workflows bundled and
// no worker running, and one tenant. The work runs on a worker in a process of its own
// (support/worker-process.ts), which a test kills -9 and replaces (another child or the harness's worker).
import type { ChildProcess } from 'node:child_process';
import { createMessagingDeps } from '../../modules/email/messaging-deps';
import { startHttp, type LocalHttp, type Responder } from '../unit/messaging/local-http';
import { startSmtp, type LocalSmtp } from '../unit/messaging/local-smtp';
import type { Tenant } from './app';
import { startEngineHarness, type EngineHarness } from './automation-engine';
import { startWorkerProcess } from './worker-process';

export interface CrashSuite {
  h: EngineHarness;
  t: Tenant;
  /** Starts the child worker on the harness's task queue and database, with the suite's env and `env`. */
  startChild(env?: NodeJS.ProcessEnv): Promise<void>;
  /** Kills the child worker -9 and resolves once it has exited. */
  killChild(): Promise<void>;
}

export interface MailCrashSuite extends CrashSuite {
  /** The server the mail goes to; it keeps what it received. */
  smtp: LocalSmtp;
}

/**
 * Before the file's tests: starts the harness (`env` over the test defaults; a function is called in the
 * hook) with its workflows bundled (so that restarts are worker starts, not bundle builds) and no worker
 * running, lets `prepare` adjust it, and creates the tenant named `tenant`. The returned suite is filled in
 * by that hook. After them: kills a child left running and closes the harness.
 */
export function crashEngineSuite(
  tenant: string,
  env: Record<string, string> | (() => Record<string, string>),
  prepare: (h: EngineHarness) => void = () => undefined,
): CrashSuite {
  const envNow = () => (typeof env === 'function' ? env() : env);
  let child: ChildProcess | null = null;
  const suite = {
    startChild: async (extra = {}) => {
      child = await startWorkerProcess({
        ...envNow(),
        TEMPORAL_TASK_QUEUE: suite.h.taskQueue,
        DATABASE_URL: suite.h.app.config.databaseUrl,
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
  } as CrashSuite;
  beforeAll(async () => {
    suite.h = await startEngineHarness(envNow());
    prepare(suite.h);
    await suite.h.startWorker();
    await suite.h.stopWorker();
    suite.t = await suite.h.app.tenant(tenant);
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await suite.h?.close();
  }, 90_000);
  return suite;
}

/**
 * `crashEngineSuite` with a local SMTP server, started first: the harness and the child send mail to it from
 * crm@example.test (`env` over that) through the harness's messaging deps. Hands the suite to `set` once it is
 * started; stops the SMTP server after the file's tests.
 */
export function withMailCrashEngine(
  tenant: string,
  env: Record<string, string>,
  set: (s: MailCrashSuite) => void,
): void {
  let smtp: LocalSmtp | undefined;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  const suite = crashEngineSuite(
    tenant,
    () => ({ SMTP_URL: `smtp://127.0.0.1:${smtp!.port}`, MAIL_FROM: 'CRM <crm@example.test>', ...env }),
    (h) => (h.messaging = createMessagingDeps(h.app.config)),
  );
  beforeAll(() => set({ ...suite, smtp: smtp! }));
  afterAll(async () => {
    suite.h?.messaging?.close();
    await smtp?.close();
  });
}

export interface HangingServer {
  /** The server's base URL (set once it is started). */
  url: string;
  /** Each call's arrival time and Idempotency-Key header, in order. */
  hits: { at: number; key: string | undefined }[];
}

/**
 * A local HTTP server for an action to call while its worker is killed, started before the file's tests and
 * closed after them: `answer(n)` answers the n-th call (from 1); where it gives none, the call hangs.
 */
export function hangingServer(answer: (n: number) => Responder | undefined): HangingServer {
  let server: LocalHttp | undefined;
  const out: HangingServer = { url: '', hits: [] };
  beforeAll(async () => {
    server = await startHttp();
    out.url = server.url;
    server.respond((req, res) => {
      out.hits.push({ at: Date.now(), key: req.headers['idempotency-key'] as string | undefined });
      answer(out.hits.length)?.(req, res);
    });
  });
  afterAll(() => server?.close());
  return out;
}
