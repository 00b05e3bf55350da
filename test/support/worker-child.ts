import { createTemporalClient } from '../../platform/temporal/client';
import { MikroORM } from '@mikro-orm/postgresql';
import { createActivities } from '../../app/activities';
import { createWorkflowPort } from '../../platform/temporal/workflow-client';
import { connectTemporal, startTemporalWorker } from '../../bin/temporal-worker';
import { createRunStarter } from '../../modules/automations/engine/starter';
import { contractStartQueue } from '../../modules/contracts/start-queue';
import { loadConfig } from '../../app/config';
import { createLogger } from '../../platform/logger';
import { ormConfig } from '../../app/orm';
import { WORKFLOWS_PATH } from '../../platform/temporal/bundle-options';

// Child process for the worker crash test: the production Temporal worker (bin/worker.ts) on the
// test's task queue, without the outbox dispatcher (other test files' events are not its business);
// with a run starter for STARTER_WORKSPACE_IDS.
// Prints "started" once polling; the test SIGKILLs it mid-action.
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'worker-child');
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const connection = await connectTemporal(config, log);
  const client = createTemporalClient(connection, config);
  const workflows = createWorkflowPort(client, config.temporalTaskQueue);
  const activities = createActivities({ orm, config, log, workflows });
  await startTemporalWorker({ config, connection, activities, workflowsPath: WORKFLOWS_PATH, log });
  // As in bin/worker.ts, the queued API runs and sent contracts of the given workspaces (STARTER_WORKSPACE_IDS)
  // are started here.
  const scope = (process.env.STARTER_WORKSPACE_IDS ?? '').split(',').filter(Boolean);
  if (scope.length)
    await createRunStarter(
      { orm, log, workflows },
      {
        connectionString: config.databaseUrl,
        workspaceIds: () => scope,
        pollMs: 200,
        queues: [contractStartQueue({ orm, log, workflows })],
      },
    ).start();
  process.stdout.write('started\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`worker-child failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
