import { allRoutes } from '../routes';
import type { RouteDef } from '../../platform/http/registry';
import { loadConfig } from '../../app/config';
import { createLogger } from '../../platform/logger';
import { openApiDocument } from './openapi';
import type { JsonSchema } from '../../platform/http/json-schema';

/**
 * The route registry as the app builds it, without a database, Temporal or a server (route
 * construction touches none of them), with the default limits: what the SDK is generated from.
 */
const registryConfig = () => loadConfig({ DATABASE_URL: 'postgres://registry@localhost/none' } as NodeJS.ProcessEnv);

export function registryRoutes(config = registryConfig()): RouteDef[] {
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
  const config = registryConfig();
  return openApiDocument(registryRoutes(config), config);
}
