// bench:read's baseline is "a raw Koa + pg handler doing the same statements": the API child records
// what one request of a route sends to Postgres (and to Meilisearch, over fetch), and the raw child
// replays exactly that per request. Calls that overlapped in the API (Promise.all) form one group and
// are replayed concurrently; groups run one after another.
import pg from 'pg';

export type Call =
  | { kind: 'pg'; text: string; values: unknown[]; name?: string }
  | { kind: 'fetch'; url: string; method: string; headers: Record<string, string>; body?: string };

/** Calls of one request, grouped by overlap. */
export type Recording = Call[][];

interface Pending {
  call: Call;
  start: number;
  end?: number;
}

let recording: Pending[] | undefined;
let clock = 0;

/** Heartbeats and LISTEN of the key cache share the driver; they are not part of a request. */
const ignored = (text: string): boolean => text === 'select 1' || /^LISTEN /i.test(text);

/** Records the call; returns the function that marks its end. */
function track(call: Call): () => void {
  const entry: Pending = { call, start: ++clock };
  recording!.push(entry);
  return () => void (entry.end ??= ++clock);
}

function whenSettled(result: unknown, done: () => void): unknown {
  if (result instanceof Promise) result.then(done, done);
  return result;
}

/** Patches pg's Client.query and global fetch once; they record only between start and stop. */
export function installRecorder(): void {
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args;
    const config = (typeof first === 'string' ? { text: first } : first) as {
      text?: string;
      values?: unknown[];
      name?: string;
    };
    const values = (Array.isArray(second) ? second : config.values) ?? [];
    const text = config.text ?? '';
    if (!recording || ignored(text)) return query.apply(this, args);
    const done = track({ kind: 'pg', text, values: values.map(plain), ...(config.name ? { name: config.name } : {}) });
    // knex passes a callback (no promise comes back): its call ends when the callback runs.
    const callback = args[args.length - 1];
    if (typeof callback === 'function')
      args[args.length - 1] = (...cbArgs: unknown[]) => {
        done();
        return (callback as (...a: unknown[]) => unknown)(...cbArgs);
      };
    return whenSettled(query.apply(this, args), done);
  } as typeof pg.Client.prototype.query;
  const fetchOriginal = globalThis.fetch;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    if (!recording) return fetchOriginal(input, init);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => void (headers[k] = v));
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const done = track({ kind: 'fetch', url, method: init?.method ?? 'GET', headers, ...(body ? { body } : {}) });
    return whenSettled(fetchOriginal(input, init), done);
  }) as typeof fetch;
}

/** Dates and buffers as pg would send them; everything else as is (the recording crosses IPC as JSON). */
function plain(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return value;
}

export function startRecording(): void {
  recording = [];
}

/** The calls since startRecording, grouped: a call joins the group of calls still running when it started. */
export function stopRecording(): Recording {
  const entries = recording ?? [];
  recording = undefined;
  const groups: Recording = [];
  let groupEnd = -1;
  for (const e of entries) {
    if (e.start < groupEnd) groups[groups.length - 1]!.push(e.call);
    else groups.push([e.call]);
    groupEnd = Math.max(e.start < groupEnd ? groupEnd : 0, e.end ?? Number.MAX_SAFE_INTEGER);
  }
  return groups;
}

/** Replays one recording on a pool (and fetch); answers the rows of the last statement of the last group. */
export async function replay(pool: pg.Pool, rec: Recording): Promise<unknown> {
  let last: unknown;
  for (const group of rec) {
    const results = await Promise.all(
      group.map(async (call) => {
        if (call.kind === 'pg') {
          const { text, values, name } = call;
          return (await pool.query(name ? { name, text, values } : { text, values })).rows;
        }
        const res = await fetch(call.url, { method: call.method, headers: call.headers, body: call.body });
        return res.json();
      }),
    );
    last = results[results.length - 1];
  }
  return last;
}
