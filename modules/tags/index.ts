/**
 * The tags module's public surface: what code outside modules/tags may import (dependency-cruiser
 * `module-public-surface`). Nothing is used from outside today; declaration files (`*.module.ts`, `*.resource.ts`,
 * `*.events.ts`) are read by the registries directly; tests and benches may reach inside.
 */
export {};
