/**
 * Workflow code changes must not break runs in flight: histories recorded by earlier versions of
 * the execution workflow replay against the current code without a nondeterminism error.
 * Fixtures (test/fixtures/*.history.json, from `temporal workflow show -o json`): trigger →
 * create_record → 1 s delay → create_record, recorded
 *  - before bookkeeping became local activities (input without engineVersion: recordSteps and
 *    finishExecution as regular activities),
 *  - after it (engineVersion 2: local-activity markers),
 *  - CRM-only actions as local activities too (engineVersion 3: create_note → condition → create_note,
 *    automation-local-actions.test.ts records it with CRM_RECORD_FIXTURE=1).
 *  - a schedule tick (automation-tick.history.json).
 * Fixtures are listed per kind in domain/workflow-kinds.ts (`replayFixtures`): add one there
 * whenever a change needs a new engineVersion (or a `patched()` guard), and one per new kind.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { WORKFLOW_KINDS } from '../../../app/modules';
import { crmDataConverter } from '../../../platform/temporal/codec';
import { WORKFLOWS_PATH, workflowBundlerOptions } from '../../../platform/temporal/bundle-options';
import { workflowSourceFiles } from '../../../platform/temporal/bundle-cache';

/** The CLI's JSON; runReplayHistory converts it (historyFromJSON) itself. */
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(path.join(__dirname, '../../fixtures', name), 'utf8'));
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  } catch {
    // installed by another test file of this jest worker
  }
  bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('WARN'),
    // As the worker bundles them (bin/bundle-workflows.ts): the preloaded modules shared by every run.
    ...workflowBundlerOptions(),
  });
}, 120_000);

const FIXTURES = WORKFLOW_KINDS.flatMap((k) => k.replayFixtures.map((f) => [k.workflowType, f] as const));

describe('workflow replay of recorded histories (every fixture of domain/workflow-kinds.ts)', () => {
  it('covers the recorded execution fixtures and the schedule tick', () => {
    expect(FIXTURES.map(([, f]) => f)).toEqual(
      expect.arrayContaining([
        'automation-execution-remote-bookkeeping.history.json',
        'automation-execution-local-bookkeeping.history.json',
        'automation-tick.history.json',
      ]),
    );
  });

  it.each(FIXTURES)(
    '%s: %s replays without nondeterminism (through the payload codec)',
    async (type, name) => {
      const history = fixture(name) as {
        events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
      };
      expect(history.events[0]!.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(type);
      // Histories from before the codec hold plain payloads: the codec passes them through.
      const dataConverter = crmDataConverter(`k1:${randomBytes(32).toString('base64')}`);
      await expect(
        Worker.runReplayHistory({ workflowBundle: bundle, dataConverter }, history, `replay-${name}`),
      ).resolves.toBeUndefined();
    },
    60_000,
  );
});

it("the worker's bundle cache key (temporal/bundle-cache.ts) hashes every project module webpack put into the bundle", () => {
  // Module ids of the bundle are paths from the project root: "./workflows/index.ts", "./node_modules/…".
  const root = path.join(__dirname, '../../..');
  const bundled = [...new Set(bundle.code.match(/"\.\/[^"\s]+\.[cm]?[jt]s"/g) ?? [])]
    .map((id) => (JSON.parse(id) as string).slice(2))
    .filter((id) => !id.startsWith('node_modules/'));
  expect(bundled).toEqual(
    expect.arrayContaining(['.data/workflow-entry/index.ts', 'modules/sequences/send-window.pure.ts']),
  );
  const hashed = workflowSourceFiles(WORKFLOWS_PATH).map((f) => path.relative(root, f));
  expect(hashed).toEqual(expect.arrayContaining(bundled));
});
