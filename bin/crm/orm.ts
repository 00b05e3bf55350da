import { MikroORM } from '@mikro-orm/postgresql';
import { DomainError } from '../../platform/errors';
import { ormConfig } from '../../app/orm';
import { redactUrl } from './redact';

/** Loaded lazily by bin/crm.ts so that usage errors answer without loading the driver. */
export async function openOrm(url: string): Promise<MikroORM> {
  const orm = await MikroORM.init(
    ormConfig(url, {
      // A silent writer: no query log or banner even with MIKRO_ORM_DEBUG set (keys stay out of logs).
      logger: () => undefined,
      debug: false,
      // An operator pointing at the wrong database gets an error, not a freshly created empty one.
      ensureDatabase: false,
      pool: { min: 0, max: 2 },
    }),
  );
  const check = await orm.checkConnection();
  if (!check.ok) {
    await orm.close(true);
    throw new DomainError(
      'upstream_failed',
      `cannot connect to the database at ${redactUrl(url, url)}: ${check.reason}`,
    );
  }
  return orm;
}
