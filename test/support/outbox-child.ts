import { createLogger } from '../../platform/logger';
import { createOutboxDispatcher } from '../../platform/outbox/dispatcher';

// Child process for the outbox crash test: delivers to "first", then hangs inside "second" until
// the test SIGKILLs it. Each step is announced on stdout as one line.
const workspaceId = process.env.OUTBOX_CHILD_WORKSPACE;
const databaseUrl = process.env.DATABASE_URL;
if (!workspaceId || !databaseUrl) throw new Error('OUTBOX_CHILD_WORKSPACE and DATABASE_URL are required');

const dispatcher = createOutboxDispatcher({
  pgConnectionString: databaseUrl,
  workspaceIds: [workspaceId],
  log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'outbox-child'),
  pollIntervalMs: 100,
  leaseMs: Number(process.env.OUTBOX_CHILD_LEASE_MS ?? 1000),
  subscribers: [
    {
      name: 'first',
      async handle(event) {
        process.stdout.write(`delivered first ${event.eventId}\n`);
      },
    },
    {
      name: 'second',
      handle(event) {
        process.stdout.write(`hanging second ${event.eventId}\n`);
        return new Promise<void>(() => undefined);
      },
    },
  ],
});

void dispatcher.start().then(() => process.stdout.write('started\n'));
