/**
 * Bundler options shared by every place that bundles workflows/ (bin/bundle-workflows.ts for the
 * worker, Worker.create for workers started from source, the replay test), so all run the same code.
 *
 * The worker runs every workflow in one reusable V8 context, but each run gets a fresh module cache:
 * without preloading, every new run and every replay after a cache eviction evaluates the
 * workflow modules, the SDK's workflow API and the domain modules they import again. Preloaded
 * modules are evaluated once per context and shared. That is safe only for modules without
 * per-run state: these hold definitions (signals, updates, activity proxies, which look up the
 * running workflow only when called), pure functions, and two bounded caches of pure results
 * (time zone formatters, compiled condition patterns). No module-level code reads the clock or
 * randomness. A module that keeps per-run state must not be imported from here.
 */
import path from 'node:path';

export const WORKFLOWS_PATH = path.join(__dirname, '../workflows/index.ts');

export const WORKFLOW_PRELOAD_MODULES: readonly string[] = ['@temporalio/workflow', WORKFLOWS_PATH];

export const workflowBundlerOptions = (): { preloadModules: string[] } => ({
  preloadModules: [...WORKFLOW_PRELOAD_MODULES],
});
