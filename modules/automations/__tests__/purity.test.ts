import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workflowFiles } from '../../../platform/temporal/bundle-options';

// The rule modules also run inside Temporal workflow code: only zod and each other, no clock, no
// randomness. Entities, services and the resource manifest beside them (database side) and the REST request schemas of
// the
// automation routes (API side: automations.schemas.ts, automation-runs.schemas.ts, and the response views
// automations.views.ts) are not imported by workflows.
const dir = join(__dirname, '..');
const API_SIDE = new Set(['automations.schemas.ts', 'automation-runs.schemas.ts', 'automations.views.ts']);
// Also left out: the module file (composition), the routers, the activities, the workflows themselves (eslint holds
// them to the sandbox), the index files (public surfaces), the outbox event catalog and the workflow kinds
// (`*.kind.ts`: the callers' descriptors, held to their own import rule by test/unit/temporal/workflow-kinds.test.ts
// "is pure").
const files = readdirSync(dir).filter(
  (f) =>
    f.endsWith('.ts') &&
    !/\.(entity|service|resource|module|events|kind|router|activities|workflow)\.ts$/.test(f) &&
    !f.startsWith('index') &&
    !API_SIDE.has(f),
);
const PURE_SHARED = [
  '../../platform/shared/wait-duration',
  '../../platform/shared/transitions',
  '../../platform/shared/record-types',
  '../../platform/references/refs',
  // Time zone arithmetic shared with sequences (a `*.pure.ts`: eslint holds it to the workflow sandbox's imports).
  '../../platform/shared/zoned-time.pure',
  // The placeholder syntax, value formatting, paths and zod helpers that templates of e-mail, SMS, offers and
  // sequences share with automations (eslint holds the `*.pure.ts` ones to the sandbox's imports; zod-kit imports zod).
  '../../platform/shared/placeholders.pure',
  '../../platform/shared/format.pure',
  '../../platform/shared/path.pure',
  '../../platform/shared/zod-kit',
];

describe('modules/automations purity', () => {
  it.each(files)('%s imports only zod and its siblings', (file) => {
    const src = readFileSync(join(dir, file), 'utf8');
    // `import type` is erased before the code runs: only value imports count.
    const values = src.replace(/^(import|export) type [^;]+;$/gm, '');
    const imports = [...values.matchAll(/(?:from|import)\s+'([^']+)'/g)].map((m) => m[1]!);
    // PURE_SHARED modules are pure too (checked below): delays and sequence waits share the wait
    // normaliser, the status tables (automations.rules.ts) use the transitions, action configs the record types.
    for (const spec of imports)
      expect(spec === 'zod' || /^\.\/[\w.-]+$/.test(spec) || PURE_SHARED.includes(spec)).toBe(true);
  });

  it.each(files)('%s reads no clock, randomness or environment', (file) => {
    const src = readFileSync(join(dir, file), 'utf8');
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  // The template helpers that moved from this folder to platform/shared (issue 25) keep the same two checks: value
  // imports only zod and each other (or the zoned-time helper, held to the sandbox by eslint), and no clock.
  const MOVED_SHARED = ['placeholders.pure.ts', 'format.pure.ts', 'path.pure.ts', 'zod-kit.ts'];
  const movedSiblings = new Set([...MOVED_SHARED, 'zoned-time.pure.ts'].map((f) => `./${f.replace(/\.ts$/, '')}`));
  it.each(MOVED_SHARED)('platform/shared/%s imports only zod and its pure siblings, and reads no clock', (file) => {
    const src = readFileSync(join(dir, '../../platform/shared', file), 'utf8');
    const values = src.replace(/^(import|export) type [^;]+;$/gm, '');
    for (const m of values.matchAll(/(?:from|import)\s+'([^']+)'/g))
      expect(m[1] === 'zod' || movedSiblings.has(m[1]!)).toBe(true);
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it('the shared wait normaliser imports nothing and reads no clock (it runs inside the workflow)', () => {
    const src = readFileSync(join(dir, '../../platform/shared/wait-duration.ts'), 'utf8');
    expect(src).not.toMatch(/^import /m);
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it('the reference marker imports only zod (values) and reads no clock', () => {
    const src = readFileSync(join(dir, '../../platform/references/refs.ts'), 'utf8').replace(
      /^import type [^;]+;$/gm,
      '',
    );
    for (const m of src.matchAll(/(?:from|import)\s+'([^']+)'/g)) expect(m[1]).toBe('zod');
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it('the record types import nothing and read no clock', () => {
    const src = readFileSync(join(dir, '../../platform/shared/record-types.ts'), 'utf8');
    expect(src).not.toMatch(/^import /m);
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it('the API-side request schemas are not imported by workflow code', () => {
    for (const file of workflowFiles()) {
      const src = readFileSync(file, 'utf8');
      for (const name of API_SIDE) expect(src).not.toContain(name.replace(/\.ts$/, ''));
    }
  });

  it('the transition tables import only the domain errors and read no clock', () => {
    const src = readFileSync(join(dir, '../../platform/shared/transitions.ts'), 'utf8');
    for (const m of src.matchAll(/(?:from|import)\s+'([^']+)'/g)) expect(m[1]).toBe('../errors');
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  // ~300 lines as written before the formatter; prettier's layout adds about 15%.
  it.each(files)('%s stays under ~350 lines', (file) => {
    expect(readFileSync(join(dir, file), 'utf8').split('\n').length).toBeLessThanOrEqual(360);
  });
});
