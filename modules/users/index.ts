/**
 * The users module's public surface: what code outside modules/users may import (dependency-cruiser
 * `module-public-surface`). Nothing is used from outside today (the user entity and manifest live in
 * modules/workspaces/); declaration files (`*.module.ts`, `*.events.ts`) are read by the registries directly; tests
 * and benches may reach inside.
 */
export {};
