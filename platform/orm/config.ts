import { defineConfig, type Options } from '@mikro-orm/postgresql';
import path from 'node:path';
import { allEntities } from './entities';
import { TenantGuard, tenantFilter } from './tenant-filter';

/**
 * The API's and the worker's ORM options. The Migrator extension (and @mikro-orm/migrations, a
 * noticeable part of a worker's start) is added only where migrations run: migratorOrmConfig.
 */
export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities: allEntities,
    filters: { [tenantFilter.name]: tenantFilter },
    subscribers: [new TenantGuard()],
    // Every request and activity forks explicitly; the global EM must never be used for work.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: false,
    pool: { min: 0, max: Number(process.env.DB_POOL_MAX ?? 10) },
    migrations: {
      path: path.join(__dirname, '../../migrations'),
      pathTs: path.join(__dirname, '../../migrations'),
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      fileName: (timestamp: string, name?: string) => `Migration${timestamp}${name ? '_' + name : ''}`,
    },
    ...overrides,
  });
}

/** ormConfig plus the Migrator (`orm.getMigrator()`): bin/migrate.ts, bin/make-migration.ts. */
export async function migratorOrmConfig(clientUrl: string): Promise<Options> {
  const { Migrator } = await import('@mikro-orm/migrations');
  return ormConfig(clientUrl, { extensions: [Migrator] });
}
