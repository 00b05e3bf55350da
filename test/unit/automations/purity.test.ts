import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The rule modules also run inside Temporal workflow code: only zod and each other, no clock, no
// randomness. Entities, services and the resource manifest beside them (database side) are not imported by workflows.
const dir = join(__dirname, '../../../domain/automations');
const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !/\.(entity|service|resource)\.ts$/.test(f));

describe('domain/automations purity', () => {
  it.each(files)('%s imports only zod and its siblings', (file) => {
    const src = readFileSync(join(dir, file), 'utf8');
    const imports = [...src.matchAll(/(?:from|import)\s+'([^']+)'/g)].map((m) => m[1]!);
    // ../shared/wait-duration and ../shared/transitions are pure too (checked below): delays and
    // sequence waits share the first, the status tables (automations.rules.ts) use the second.
    for (const spec of imports) expect(spec === 'zod' || /^\.\/[\w.-]+$/.test(spec) || spec === '../shared/wait-duration' || spec === '../shared/transitions').toBe(true);
  });

  it.each(files)('%s reads no clock, randomness or environment', (file) => {
    const src = readFileSync(join(dir, file), 'utf8');
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it('the shared wait normaliser imports nothing and reads no clock (it runs inside the workflow)', () => {
    const src = readFileSync(join(dir, '../shared/wait-duration.ts'), 'utf8');
    expect(src).not.toMatch(/^import /m);
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it('the transition tables import only the domain errors and read no clock', () => {
    const src = readFileSync(join(dir, '../shared/transitions.ts'), 'utf8');
    for (const m of src.matchAll(/(?:from|import)\s+'([^']+)'/g)) expect(m[1]).toBe('../errors');
    expect(src).not.toMatch(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(|performance\.now/);
  });

  it.each(files)('%s stays under ~300 lines', (file) => {
    expect(readFileSync(join(dir, file), 'utf8').split('\n').length).toBeLessThanOrEqual(320);
  });
});
