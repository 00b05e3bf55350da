import { z } from 'zod';

/** What the one-click unsubscribe (POST /api/unsubscribe/:token) answers. */
export const unsubscribeResultView = z.object({
  unsubscribed: z.literal(true),
  exited: z.number().int().describe('running enrollments of the contact that were exited'),
});
