// Every operation documents the body of every status it answers: the registry is walked here, and
// every answer in `npm test` is checked against the document (api/docs/contract-check.ts).
import { registryRoutes } from '../../api/docs/registry-document';
import { openApiDocument } from '../../api/docs/openapi';
import { openApiPath } from '../../platform/http/json-schema';
import { SECTION_DESCRIPTIONS } from '../../api/docs/sections';

const isEmptySchema = (schema: unknown): boolean =>
  !schema || (typeof schema === 'object' && Object.keys(schema as object).length === 0);

describe('contract registry', () => {
  const all = registryRoutes();
  const doc = openApiDocument(all) as { paths: Record<string, Record<string, { responses: Record<string, any> }>> };

  it('every route declares the answer at its success status', () => {
    const missing = all.filter((def) => !def.response).map((def) => `${def.method} ${def.path}`);
    expect(missing).toEqual([]);
  });

  it('every public route is built by publicRoute (no workspace context reaches its handler)', () => {
    const bare = all.filter((def) => 'public' in def.access && !def.keyless).map((def) => `${def.method} ${def.path}`);
    expect(bare).toEqual([]);
  });

  it('every section (OpenAPI tag) has a description', () => {
    const sections = [...new Set(all.map((def) => def.section))];
    expect(sections.filter((name) => !SECTION_DESCRIPTIONS[name])).toEqual([]);
  });

  it('every documented JSON answer has a schema with a shape (not {})', () => {
    const vague: string[] = [];
    for (const def of all) {
      const op = doc.paths[openApiPath(def.path)]![def.method.toLowerCase()]!;
      for (const [status, res] of Object.entries(op.responses)) {
        if (res.$ref) continue;
        const json = res.content?.['application/json'];
        if (json && isEmptySchema(json.schema)) vague.push(`${def.method} ${def.path} ${status}`);
      }
    }
    expect(vague).toEqual([]);
  });
});
