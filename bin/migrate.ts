import { runMigrations } from '../app/migrate';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (npm start provides it; see README)');
  const applied = await runMigrations(url);
  process.stderr.write(`[migrate] ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[migrate] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
