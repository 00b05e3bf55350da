import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { allEntities } from './entities';
import { TenantGuard, tenantFilter } from './tenant-filter';

export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities: allEntities,
    extensions: [Migrator],
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
