// `node --import tsx bin/bundle-workflows.ts <out.js>`: webpack-bundles the workflow entry
// (temporal/bundle-options.ts) for the
// Temporal worker. bin/worker.ts runs it as a short-lived child so webpack's ~100 MB never stay in
// the long-running worker; a prebuilt file can be given with TEMPORAL_WORKFLOW_BUNDLE instead.
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { WORKFLOWS_PATH, workflowBundlerOptions } from '../platform/temporal/bundle-options';

export async function bundleWorkflowsTo(out: string): Promise<number> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('WARN'),
    ...workflowBundlerOptions(),
  });
  writeFileSync(out, code);
  return code.length;
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: bin/bundle-workflows.ts <out.js>\n');
    process.exit(2);
  }
  bundleWorkflowsTo(out).then(
    (bytes) => process.stdout.write(`workflow bundle: ${out} (${Math.round(bytes / 1024)} KiB)\n`),
    (err: unknown) => {
      process.stderr.write(`[bundle-workflows] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
