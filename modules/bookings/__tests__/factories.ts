// The bookings module's factories for the registry-walking suites (test/support/factories.ts merges them).
import type { Factory } from '../../../test/support/factories';
import { book, createConfig, freshDay } from './support';

export const factories: Record<string, Factory> = {
  'booking-config': async (http) => (await createConfig(http))._id as string,
  booking: async (http) => {
    const config = await createConfig(http);
    const res = await book(http, config._id, `${freshDay()}T10:00:00Z`);
    if (res.status !== 201) throw new Error(`booking factory: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data._id as string;
  },
};
