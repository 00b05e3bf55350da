import type { HttpClient } from '../../../test/support/app';
import { unique } from '../../../test/support/unique';

/** Every day open around the clock: tests pick instants freely. */
export const ALL_DAY = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
);

export async function ownerId(http: HttpClient): Promise<string> {
  const res = await http.get('/api/v1/whoami');
  return res.body.data.user._id as string;
}

/** A config (POST /booking-configs, admin) with the key's user as the one agent, UTC, no notice, 30-minute slots. */
export async function createConfig(
  http: HttpClient,
  over: Record<string, unknown> = {},
): Promise<{ _id: string } & Record<string, unknown>> {
  const res = await http.post('/api/v1/booking-configs', {
    name: `Booking page ${unique()}`,
    timeZone: 'UTC',
    agents: [{ userId: await ownerId(http), weeklyAvailability: ALL_DAY }],
    meetingTypes: [{ id: 'intro', name: 'Intro call', durationMinutes: 30 }],
    minimumNoticeMinutes: 0,
    slotIntervalMinutes: 30,
    ...over,
  });
  if (res.status !== 201) throw new Error(`booking config: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

let day = 0;
/** A distinct far-future UTC day per call (the agent is shared by every config of a workspace). */
export function freshDay(): string {
  const d = new Date(Date.UTC(2031, 0, 1) + (++day + (Date.now() % 1000) * 3) * 86_400_000);
  return d.toISOString().slice(0, 10);
}

export async function book(http: HttpClient, configId: string, slotStart: string, over: Record<string, unknown> = {}) {
  return http.post('/api/v1/bookings', {
    configId,
    slotStart,
    attendeeInfo: { name: 'Ada Lovelace', email: `ada-${unique()}@example.test` },
    ...over,
  });
}
