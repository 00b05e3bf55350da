/**
 * The workspaces module's public surface: what code outside modules/workspaces may import (dependency-cruiser
 * `module-public-surface`): the workspace, user, API-key and rate-limit window entities (the ORM entity list, every
 * feature that names a user or reads the workspace), the request's API-key check with its rate limit, scope and
 * role checks (the API's app) and its cache (the API's bootstrap), the rate limits (the automation intake), run
 * retention and the rate-limit window pruning (housekeeping, the CLI), and the operator commands (the CLI, scripts).
 * Declaration files (`workspaces.module.ts`, `workspaces.resource.ts`) are read by the registries directly; tests may
 * reach inside. Workspaces imports no other feature.
 */
export { ApiKey } from './api-key.entity';
export { createApiKey } from './api-keys.service';
export type { ActorCache, Authenticated } from './authenticate';
export { authorize } from './authorize';
export { createKeyCache } from './key-cache';
export { createOperatorUser, parseId, parseKeyInput, parseUserInput, revokeOperatorKey } from './operator.service';
export { RateLimitWindow } from './rate-limit-window.entity';
export { consumeRateLimit, pruneRateLimitWindows, rateLimitState, rateWindows } from './rate-limit.service';
export {
  DEFAULT_RUN_RETENTION_DAYS,
  MAX_RUN_RETENTION_DAYS,
  MIN_RUN_RETENTION_DAYS,
  pruneFinishedRuns,
  setRunRetention,
} from './run-retention';
export { User } from './user.entity';
export { Workspace, type WorkspacePlan } from './workspace.entity';
export { createWorkspace, setWorkspaceStatus } from './workspaces.service';
