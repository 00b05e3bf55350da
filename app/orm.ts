/**
 * The ORM options of every process: the entities of every module (their manifests' and their `entities`) and
 * platform's global rows. Building them also registers the resource list (app/resources.ts), which the services read
 * at run time.
 */
import type { Options } from '@mikro-orm/postgresql';
import type { ModuleSpec } from '../platform/module';
import { migratorOrmConfigOf, ormConfigOf } from '../platform/orm/config';
import { platformGlobalEntities, type OrmEntities } from '../platform/orm/entities';
import { MODULES } from './modules';
import { registerAppResources, RESOURCE_ENTITIES } from './resources';

const declared: readonly Pick<ModuleSpec, 'entities'>[] = MODULES;

export const ENTITIES: OrmEntities = {
  tenant: [...RESOURCE_ENTITIES, ...declared.flatMap((m) => m.entities?.tenant ?? [])],
  global: [...declared.flatMap((m) => m.entities?.global ?? []), ...platformGlobalEntities],
};

/** The API's and the worker's ORM options (the Migrator only in migratorOrmConfig). */
export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  registerAppResources();
  return ormConfigOf(ENTITIES, clientUrl, overrides);
}

/** ormConfig plus the Migrator (`orm.getMigrator()`): bin/migrate.ts, bin/make-migration.ts. */
export async function migratorOrmConfig(clientUrl: string): Promise<Options> {
  registerAppResources();
  return migratorOrmConfigOf(ENTITIES, clientUrl);
}
