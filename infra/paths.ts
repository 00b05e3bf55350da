import path from 'node:path';

/** Absolute path of the repository root (this file lives in `<root>/infra`). */
export const repoRoot = path.resolve(__dirname, '..');

/** Project-local tools (Temporal CLI, Meilisearch binary). Ignored by git, kept between runs. */
export const toolsDir = path.join(repoRoot, '.tools');
export const toolsBinDir = path.join(toolsDir, 'bin');

export type StackProfile = 'dev' | 'test';

/** Data folder of the dev stack: `CRM_DATA_DIR`, else `<root>/.data`. */
export function devDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.CRM_DATA_DIR?.trim();
  return fromEnv ? path.resolve(repoRoot, fromEnv) : path.join(repoRoot, '.data');
}

/** Data folder of the test stack: `CRM_TEST_DATA_DIR`, else `<dev data folder>/test`. */
export function testDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.CRM_TEST_DATA_DIR?.trim();
  return fromEnv ? path.resolve(repoRoot, fromEnv) : path.join(devDataDir(env), 'test');
}

export function dataDirFor(profile: StackProfile, env: NodeJS.ProcessEnv = process.env): string {
  return profile === 'test' ? testDataDir(env) : devDataDir(env);
}

/** Written into every data folder the stack creates; `bin/test.ts` only deletes folders with it. */
export const DATA_DIR_MARKER = '.crm-data-dir';
