// The modules the worker preloads (temporal/bundle-options.ts) are evaluated once per V8 context and
// shared by every workflow run in it. This walks their import graph in this repository and fails on
// module-level state a run could leave for the next: `let`/`var`, a `new Map/Set/...` other than the
// known caches of pure results, and clock or randomness read while the module loads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { WORKFLOW_PRELOAD_MODULES, WORKFLOWS_PATH } from '../../../platform/temporal/bundle-options';

const ROOT = path.join(__dirname, '../../..');
/** Bounded caches of pure results (same answer for the same key in every run). */
const ALLOWED_CACHES = new Set([
  'platform/shared/zoned-time.pure.ts:formatters',
  'modules/automations/conditions.pure.ts:regexCache',
]);

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      readFileSync(candidate);
      if (candidate.endsWith('.ts')) return candidate;
    } catch {
      // next candidate
    }
  }
  return null;
}

function graph(entry: string): Map<string, ts.SourceFile> {
  const seen = new Map<string, ts.SourceFile>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    seen.set(file, source);
    for (const st of source.statements) {
      const spec =
        (ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) &&
        st.moduleSpecifier &&
        ts.isStringLiteral(st.moduleSpecifier) &&
        !(ts.isImportDeclaration(st) && st.importClause?.isTypeOnly) &&
        !(ts.isExportDeclaration(st) && st.isTypeOnly)
          ? st.moduleSpecifier.text
          : null;
      const next = spec ? resolveLocal(file, spec) : null;
      if (next) visit(next);
    }
  };
  visit(entry);
  return seen;
}

function problems(file: string, source: ts.SourceFile): string[] {
  const rel = path.relative(ROOT, file);
  const out: string[] = [];
  const where = (node: ts.Node): string => `${rel}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const checkLoadTime = (node: ts.Node): void => {
    // Function bodies run later, inside a workflow: only what runs while the module loads matters.
    if (ts.isFunctionLike(node) || ts.isClassDeclaration(node)) return;
    if (ts.isPropertyAccessExpression(node)) {
      const text = node.getText(source);
      if (text === 'Date.now' || text === 'Math.random') out.push(`${where(node)} reads ${text} while loading`);
    }
    if (ts.isNewExpression(node) && node.expression.getText(source) === 'Date')
      out.push(`${where(node)} reads the clock while loading`);
    ts.forEachChild(node, checkLoadTime);
  };
  for (const st of source.statements) {
    if (ts.isVariableStatement(st)) {
      if (!(st.declarationList.flags & ts.NodeFlags.Const)) out.push(`${where(st)} declares module-level let/var`);
      for (const d of st.declarationList.declarations) {
        const name = d.name.getText(source);
        const init = d.initializer;
        if (
          init &&
          ts.isNewExpression(init) &&
          /^(Map|Set|WeakMap|WeakSet|Array)$/.test(init.expression.getText(source)) &&
          !ALLOWED_CACHES.has(`${rel}:${name}`) &&
          !(init.arguments?.length && /^(Set|Map)$/.test(init.expression.getText(source)) && /^[A-Z_]+$/.test(name))
        )
          out.push(`${where(d)} keeps a mutable ${init.expression.getText(source)} (${name})`);
      }
    }
    checkLoadTime(st);
  }
  return out;
}

describe('preloaded workflow modules (temporal/bundle-options.ts)', () => {
  it('preloads the workflow entry point and the SDK workflow API', () => {
    expect(WORKFLOW_PRELOAD_MODULES).toEqual(['@temporalio/workflow', WORKFLOWS_PATH]);
  });

  it('no module they import from this repository keeps per-run state or reads the clock while loading', () => {
    const files = graph(WORKFLOWS_PATH);
    expect(files.size).toBeGreaterThan(10);
    const found = [...files].flatMap(([file, source]) => problems(file, source));
    expect(found).toEqual([]);
  });

  it('the check finds such state', () => {
    const file = path.join(ROOT, 'domain/example.ts');
    const source = ts.createSourceFile(
      file,
      'let n = 0;\nconst seen = new Map();\nconst WORDS = new Set(["a"]);\nconst at = Date.now();\nexport const f = () => Date.now();',
      ts.ScriptTarget.ES2022,
      true,
    );
    expect(problems(file, source)).toEqual([
      'domain/example.ts:1 declares module-level let/var',
      'domain/example.ts:2 keeps a mutable Map (seen)',
      'domain/example.ts:4 reads Date.now while loading',
    ]);
  });
});
