/**
 * Workflow code changes must not break runs in flight: histories recorded by earlier versions of
 * the execution workflow replay against the current code without a nondeterminism error.
 * Fixtures (test/fixtures/*.history.json, from `temporal workflow show -o json`): trigger →
 * create_record → 1 s delay → create_record, recorded
 *  - before bookkeeping became local activities (input without engineVersion: recordSteps and
 *    finishExecution as regular activities),
 *  - after it (engineVersion 2: local-activity markers).
 * Add a fixture here whenever a change needs a new engineVersion (or a `patched()` guard).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

/** The CLI's JSON; runReplayHistory converts it (historyFromJSON) itself. */
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, '../../fixtures', name), 'utf8'));
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  } catch {
    // installed by another test file of this jest worker
  }
  bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../../workflows'), logger: new DefaultLogger('WARN') });
}, 120_000);

describe('automation execution workflow: replay of recorded histories', () => {
  it.each([
    ['automation-execution-remote-bookkeeping.history.json'],
    ['automation-execution-local-bookkeeping.history.json'],
  ])('%s replays without nondeterminism', async (name) => {
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, fixture(name), `replay-${name}`)).resolves.toBeUndefined();
  }, 60_000);
});
