// The access policies most routes declare (registry.ts `Access`), written once: a key with the read scope may read,
// one with the write scope may write, and settings and rules need the write scope and an owner or admin role.

/** Reads: a key with the `read` scope. */
export const read = { scopes: ['read'] } as const;
/** Writes: a key with the `write` scope. */
export const write = { scopes: ['write'] } as const;
/** Workspace settings, templates and rules: the `write` scope and an owner or admin role. */
export const admin = { scopes: ['write'], roles: ['owner', 'admin'] } as const;
