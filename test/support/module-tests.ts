// What each module folder gives the registry-walking suites: `modules/<m>/__tests__/factories.ts` may export
// `factories` (test/support/factories.ts) and `crudFixtures` (test/http/crud-contract.test.ts). Found by path, so
// adding a module edits no shared test file; a key given twice fails.
import fs from 'node:fs';
import path from 'node:path';

/** crud-contract's fixture of a builder-made resource: a valid create body, a partial update changing `field` only. */
export interface CrudFixture {
  create: Record<string, unknown>;
  update: Record<string, unknown>;
  field: string;
  unchanged: string;
}

const MODULES_DIR = path.join(__dirname, '../../modules');

/** The merged `exportName` records of every module's `__tests__/factories.ts`, none of whose keys is in `taken`. */
export function moduleTestRecords<T>(
  exportName: string,
  taken: Readonly<Record<string, unknown>> = {},
): Record<string, T> {
  const merged: Record<string, T> = {};
  for (const name of fs.readdirSync(MODULES_DIR).sort()) {
    const file = path.join(MODULES_DIR, name, '__tests__', 'factories.ts');
    if (!fs.existsSync(file)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- discovered at run time, one file per module
    const own = (require(file) as Record<string, Record<string, T> | undefined>)[exportName] ?? {};
    for (const [key, value] of Object.entries(own)) {
      if (key in taken || key in merged) throw new Error(`${exportName}["${key}"] is declared twice (${file})`);
      merged[key] = value;
    }
  }
  return merged;
}
