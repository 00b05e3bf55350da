// WORKER_NICE (platform/process-priority.ts): every thread the process has when it lowers its priority runs at the
// new priority, and so does a thread started afterwards; a priority is never raised. Run in a child process: a
// lowered priority cannot be raised again without privileges.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../../app/config';

const CHILD = `
const fs = require('node:fs');
const { Worker } = require('node:worker_threads');
const { lowerProcessPriority } = require(${JSON.stringify(path.join(__dirname, '../../../platform/process-priority.ts'))});
const nices = () => fs.readdirSync('/proc/self/task').map((t) => Number(fs.readFileSync('/proc/self/task/' + t + '/stat', 'utf8').split(') ')[1].split(' ')[16]));
const before = nices();
const threads = lowerProcessPriority(Number(process.argv[1]));
const after = nices();
const w = new Worker('setTimeout(() => {}, 200)', { eval: true });
w.on('online', () => {
  const later = nices();
  const again = lowerProcessPriority(1);
  console.log(JSON.stringify({ before, threads, after, later, again, final: nices() }));
  w.terminate();
});
`;

function run(nice: number): { before: number[]; threads: number; after: number[]; later: number[]; final: number[] } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', CHILD, String(nice)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('lowerProcessPriority', () => {
  it('lowers every thread, including the ones started afterwards, and never raises one', () => {
    const r = run(7);
    expect(r.before.length).toBeGreaterThan(1); // V8's and libuv's threads beside the main one
    // The test process may itself run below the default priority; the child starts where it does.
    const lowered = Math.max(7, ...r.before);
    expect(r.threads).toBe(r.before.length);
    expect(r.after.every((n) => n === lowered)).toBe(true);
    expect(r.later.length).toBeGreaterThan(r.after.length); // the worker thread started after
    expect(r.later.every((n) => n === lowered)).toBe(true);
    // Asking for a higher priority afterwards (1) leaves every thread where it was.
    expect(r.final.every((n) => n === lowered)).toBe(true);
  });

  it('changes nothing at 0', () => {
    const r = run(0);
    expect(r.threads).toBe(0);
    expect(r.after).toEqual(r.before);
  });
});

describe('WORKER_NICE', () => {
  const base = { DATABASE_URL: 'postgres://localhost/x' };
  it('defaults to 10 and takes 0 to 19', () => {
    expect(loadConfig(base).workerNice).toBe(10);
    expect(loadConfig({ ...base, WORKER_NICE: '0' }).workerNice).toBe(0);
    expect(loadConfig({ ...base, WORKER_NICE: ' 19 ' }).workerNice).toBe(19);
  });

  it('refuses a value outside 0-19 instead of clamping it, as TEMPORAL_NICE does', () => {
    for (const bad of ['20', '-1', '2.5', 'low'])
      expect(() => loadConfig({ ...base, WORKER_NICE: bad })).toThrow(
        `WORKER_NICE must be an integer from 0 to 19, got "${bad}"`,
      );
  });
});
