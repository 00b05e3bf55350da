import { MikroORM } from '@mikro-orm/postgresql';
import { migratorOrmConfig } from './orm';

/** Applies pending migrations; safe to run on every start (a no-op when up to date). */
export async function runMigrations(databaseUrl: string): Promise<string[]> {
  const orm = await MikroORM.init(await migratorOrmConfig(databaseUrl));
  try {
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await orm.close(true);
  }
}
