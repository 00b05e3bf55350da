import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { crmDataConverter } from '../temporal/codec';

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  const preload = process.env.PRELOAD ? process.env.PRELOAD.split(',') : undefined;
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: new DefaultLogger('WARN'),
    ...(preload ? { preloadModules: preload } : {}),
  });
  const fx = process.env.FIXTURE ?? 'sequence-enrollment-folded-bookkeeping.history.json';
  const history = JSON.parse(readFileSync(path.join(__dirname, '../test/fixtures', fx), 'utf8'));
  const dataConverter = crmDataConverter(`k1:${randomBytes(32).toString('base64')}`);
  const N = Number(process.env.N ?? 1000);
  for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
    const t0 = process.cpuUsage();
    const w0 = Date.now();
    let n = 0;
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: bundle, dataConverter },
      (function* () {
        for (let i = 0; i < N; i++) yield { workflowId: `w${i}`, history };
      })(),
    )) {
      if (r.error) throw r.error;
      n++;
    }
    const c = process.cpuUsage(t0);
    console.log(`round ${round}: ${n} replays, wall ${Date.now() - w0} ms, cpu ${((c.user + c.system) / 1000).toFixed(0)} ms => ${((c.user + c.system) / 1000 / n).toFixed(2)} ms/replay`);
  }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
