// The in-process automation engine of bench:automations and bench:fairness: the config on a task queue of its own,
// Postgres (pool and ORM), Temporal clients and a worker with the real workflows and activities.
import { MikroORM } from '@mikro-orm/postgresql';
import { Connection, type Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { createActivities } from '../app/activities';
import type { RunningStack } from '../infra/stack';
import type { AppConfig } from '../platform/config';
import { loadConfig } from '../app/config';
import { newId } from '../platform/ids';
import { createLogger } from '../platform/logger';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { WORKFLOWS_PATH } from '../platform/temporal/bundle-options';
import { createTemporalClient } from '../platform/temporal/client';
import { crmDataConverter } from '../platform/temporal/codec';
import type { WorkflowPort } from '../platform/workflow-port';
import { benchEnv } from './bench-stack';

export interface EngineBench {
  config: AppConfig;
  taskQueue: string;
  appLog: Logger;
  pool: pg.Pool;
  orm: MikroORM;
  /** Over a connection of its own. */
  client: Client;
  /** The workers' connection. */
  native: NativeConnection;
  /** Over the workers' connection: the worker process starts workflows through its own connection (bin/worker.ts). */
  localClient: Client;
  /** Closes the connections, the pool and the ORM (after the workers stopped). */
  close(): Promise<void>;
}

/** Connects bench `name` (task queue `bench-<name>-<id>`) to the stack, migrating the Postgres it started. */
export async function openEngineBench(stack: RunningStack | undefined, name: string): Promise<EngineBench> {
  const taskQueue = `bench-${name}-${newId()}`;
  const config = loadConfig({ ...benchEnv(stack), TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'silent' });
  if (stack?.started.includes('postgres')) await runMigrations(config.databaseUrl);
  const appLog = createLogger(process.env.BENCH_LOG_LEVEL ?? 'error', `bench-${name}`);
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 8 });
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const client = createTemporalClient(await Connection.connect({ address: config.temporalAddress }), config);
  const native = await NativeConnection.connect({ address: config.temporalAddress });
  const localClient = createTemporalClient(native, config);
  return {
    config,
    taskQueue,
    appLog,
    pool,
    orm,
    client,
    native,
    localClient,
    async close() {
      await native.close().catch(() => undefined);
      await client.connection.close().catch(() => undefined);
      await pool.end();
      await orm.close(true);
    },
  };
}

/** A worker with the real workflows and activities on the bench's task queue; `tuning` as in the worker process. */
export function createEngineWorker(
  bench: EngineBench,
  workflows: WorkflowPort,
  tuning: Partial<WorkerOptions> = {},
): Promise<Worker> {
  const { config, orm, appLog } = bench;
  return Worker.create({
    connection: bench.native,
    namespace: config.temporalNamespace,
    taskQueue: bench.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: createActivities({ orm, config, log: appLog, workflows }),
    dataConverter: crmDataConverter(config.temporalCodec.payloadKeys),
    ...tuning,
  });
}
