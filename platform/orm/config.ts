import { defineConfig, type Options } from '@mikro-orm/postgresql';
import path from 'node:path';
import type { OrmEntities } from './entities';
import { TenantGuard, tenantFilter } from './tenant-filter';

/**
 * The API's and the worker's ORM options over the composition's entities (app/orm.ts). The Migrator extension (and
 * @mikro-orm/migrations, a noticeable part of a worker's start) is added only where migrations run:
 * migratorOrmConfig.
 */
export function ormConfigOf(entities: OrmEntities, clientUrl: string, overrides: Partial<Options> = {}): Options {
  const filter = tenantFilter(entities.tenant);
  return defineConfig({
    clientUrl,
    entities: [...entities.global, ...entities.tenant] as never[],
    filters: { [filter.name]: filter },
    subscribers: [new TenantGuard(entities.tenant)],
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

/** ormConfigOf plus the Migrator (`orm.getMigrator()`): bin/migrate.ts, bin/make-migration.ts. */
export async function migratorOrmConfigOf(entities: OrmEntities, clientUrl: string): Promise<Options> {
  const { Migrator } = await import('@mikro-orm/migrations');
  return ormConfigOf(entities, clientUrl, { extensions: [Migrator] });
}
