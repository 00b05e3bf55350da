import { allRoutes } from '../routes';
import type { RouteDef } from '../http/registry';
import { loadConfig } from '../../domain/config';
import { createLogger } from '../../domain/logger';
import { openApiDocument } from './openapi';
import type { JsonSchema } from './schema';

/**
 * The route registry as the app builds it, without a database, Temporal or a server (route
 * construction touches none of them), with the default limits: what the SDK is generated from.
 */
export function registryRoutes(): RouteDef[] {
  const config = loadConfig({ DATABASE_URL: 'postgres://registry@localhost/none' } as NodeJS.ProcessEnv);
  return allRoutes({
    config,
    orm: {},
    log: createLogger('silent', 'registry'),
    temporal: {},
    messaging: {},
    readiness: {},
  } as never);
}

/** The OpenAPI document of the whole API with the default limits (deterministic). */
export function registryDocument(): JsonSchema {
  const config = loadConfig({ DATABASE_URL: 'postgres://registry@localhost/none' } as NodeJS.ProcessEnv);
  return openApiDocument(registryRoutes(), config);
}
