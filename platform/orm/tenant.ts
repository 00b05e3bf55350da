import type { EntityManager } from '@mikro-orm/postgresql';

export const TENANT_FILTER = 'tenant';

export interface TenantFilterArgs {
  workspaceId: string;
}

/** A fork of the global EM bound to one workspace: the only way request and activity code gets an EM. */
export function forkForWorkspace(em: EntityManager, workspaceId: string): EntityManager {
  const fork = em.fork({ clear: true, useContext: false });
  fork.setFilterParams(TENANT_FILTER, { workspaceId } satisfies TenantFilterArgs);
  return fork;
}

const LEAN_SCOPE = Symbol('leanScope');

/** What a request Ctx lends the lean reads (domain/orm/lean.ts) while its fork has not been made. */
export interface LeanScope {
  /** The global EM: its metadata, platform and pool only (never its identity map or a transaction). */
  em: EntityManager;
  workspaceId: string;
}

/**
 * A request's Ctx whose EM fork is made on the first use of `ctx.em`. Until then the lean reads take
 * the workspace from the actor and the pool from the global EM (leanScopeOf): a GET answered by them
 * never builds an entity manager. The fork, once made, is the usual forkForWorkspace.
 */
export function lazyWorkspaceCtx<A extends { workspaceId: string }>(
  em: EntityManager,
  actor: A,
): { em: EntityManager; actor: A } {
  let fork: EntityManager | undefined;
  const ctx = {
    actor,
    get em(): EntityManager {
      return (fork ??= forkForWorkspace(em, actor.workspaceId));
    },
  };
  const scope: LeanScope = { em, workspaceId: actor.workspaceId };
  Object.defineProperty(ctx, LEAN_SCOPE, { value: () => (fork ? undefined : scope) });
  return ctx;
}

/** The lean scope of a Ctx made by lazyWorkspaceCtx whose fork has not been made; otherwise undefined. */
export function leanScopeOf(ctx: object): LeanScope | undefined {
  return (ctx as { [LEAN_SCOPE]?: () => LeanScope | undefined })[LEAN_SCOPE]?.();
}
