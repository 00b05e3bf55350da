/**
 * Actions whose target does not exist in the product yet: they validate their config (so a
 * broken definition is reported as such) and then fail the step with a clear error.
 */
import { fail, type ActionHandler } from './types';

export const createOfferAction: ActionHandler<{ title: string }> = {
  kind: 'fail',
  describe: (c) => `would create an offer "${c.title}"`,
  run: async () => fail('create_offer: offers are not available yet'),
};

/** Accounting actions: the mapping was validated with the config; no accounting integration exists yet. */
export const accountingAction: ActionHandler<{ system: string }> = {
  kind: 'fail',
  describe: (c) => `would call the ${c.system} accounting integration`,
  run: async (_env, c) => fail(`integration not connected: ${c.system}`),
};
