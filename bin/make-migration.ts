import { MikroORM } from '@mikro-orm/postgresql';
import { migratorOrmConfig } from '../app/orm';

// Developer tool: diff the entities against a database migrated to head and write a migration.
// Usage: DATABASE_URL=... npx tsx bin/make-migration.ts <name>
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const orm = await MikroORM.init(await migratorOrmConfig(url));
  try {
    await orm.getMigrator().up();
    const result = await orm.getMigrator().createMigration(undefined, false, false, process.argv[2]);
    process.stdout.write(result.fileName ? `wrote ${result.fileName}\n` : 'no changes\n');
  } finally {
    await orm.close(true);
  }
}
void main();
