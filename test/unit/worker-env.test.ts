import { DEFAULT_WORKER_MAX_HEAP_MB, workerProcessEnv } from '../../infra/worker-env';

describe('worker process environment', () => {
  it('adds the malloc thresholds and the heap cap, keeping other NODE_OPTIONS', () => {
    const env = workerProcessEnv({ NODE_OPTIONS: '--enable-source-maps' });
    expect(env.MALLOC_TRIM_THRESHOLD_).toBe('65536');
    expect(env.NODE_OPTIONS).toBe(`--enable-source-maps --max-old-space-size=${DEFAULT_WORKER_MAX_HEAP_MB}`);
  });

  it('takes WORKER_MAX_HEAP_MB, 0 leaves V8 its own limit, an explicit flag wins', () => {
    expect(workerProcessEnv({ WORKER_MAX_HEAP_MB: '512' }).NODE_OPTIONS).toBe('--max-old-space-size=512');
    expect(workerProcessEnv({ WORKER_MAX_HEAP_MB: '0' }).NODE_OPTIONS).toBeUndefined();
    expect(workerProcessEnv({ NODE_OPTIONS: '--max-old-space-size=1024' }).NODE_OPTIONS).toBe(
      '--max-old-space-size=1024',
    );
    expect(workerProcessEnv({ MALLOC_TRIM_THRESHOLD_: '1' }).MALLOC_TRIM_THRESHOLD_).toBe('1');
  });

  it('refuses a value that is not a whole number of megabytes', () => {
    for (const bad of ['-1', '1.5', 'lots']) {
      expect(() => workerProcessEnv({ WORKER_MAX_HEAP_MB: bad })).toThrow(/WORKER_MAX_HEAP_MB/);
    }
  });
});
