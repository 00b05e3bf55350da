/**
 * The index and unique-constraint statements of a tenant table as MikroORM's migration generator writes them (its
 * names: `<table>_<columns>_index`, `<table>_<columns>_unique`), for migrations: one call lists a table's indexes
 * instead of a statement each. Every index and constraint leads with `workspace_id` (the tenant filter).
 */
type Columns = string | readonly string[];

const listed = (columns: readonly string[]): string => columns.map((c) => `"${c}"`).join(', ');
const named = (table: string, columns: readonly string[], suffix: string): string =>
  `"${table}_${columns.join('_')}_${suffix}"`;
const withWorkspace = (columns: Columns): string[] => [
  'workspace_id',
  ...(typeof columns === 'string' ? [columns] : columns),
];

/**
 * `create index` on `workspace_id` alone (unless `workspaceIndex: false`), then on `workspace_id` and each of
 * `further`, then `add constraint … unique` on `workspace_id` and each of `unique`.
 */
export function tenantIndexes(
  table: string,
  further: readonly Columns[],
  opts: { unique?: readonly Columns[]; workspaceIndex?: boolean } = {},
): string[] {
  const indexes = [...(opts.workspaceIndex === false ? [] : [['workspace_id']]), ...further.map(withWorkspace)];
  return [
    ...indexes.map((c) => `create index ${named(table, c, 'index')} on "${table}" (${listed(c)});`),
    ...(opts.unique ?? [])
      .map(withWorkspace)
      .map((c) => `alter table "${table}" add constraint ${named(table, c, 'unique')} unique (${listed(c)});`),
  ];
}
