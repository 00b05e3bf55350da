// Child process for the webhook durability test: a Temporal worker with the real workflows and
// activities on TEMPORAL_TASK_QUEUE, killed with SIGKILL by the test. Prints "ready" once polling.
import { MikroORM } from '@mikro-orm/postgresql';
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../../app/activities';
import { createWorkflowPort } from '../../../platform/temporal/workflow-client';
import { createTemporalClient } from '../../../platform/temporal/client';
import { crmDataConverter } from '../../../platform/temporal/codec';
import { loadConfig } from '../../../app/config';
import { createLogger } from '../../../platform/logger';
import { ormConfig } from '../../../app/orm';
import { WORKFLOWS_PATH } from '../../../platform/temporal/bundle-options';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'webhook-worker-child');
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const client = createTemporalClient(await Connection.connect({ address: config.temporalAddress }), config);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.temporalTaskQueue,
    dataConverter: crmDataConverter(config.temporalCodec.payloadKeys),
    workflowsPath: WORKFLOWS_PATH,
    activities: createActivities({ orm, config, log, workflows: createWorkflowPort(client, config.temporalTaskQueue) }),
  });
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
}

main().catch((err: unknown) => {
  process.stderr.write(`webhook worker child failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
