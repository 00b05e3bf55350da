import {
  action,
  chainGraph,
  createAutomation,
  waitFor,
  type EngineHarness,
} from '../../../test/support/automation-engine';
import { withEngine } from '../../../test/support/engine-suite';
import type { Tenant } from '../../../test/support/app';

// Automations see offers: sending one emits offer_sent, which starts an automation with that
// trigger; its context carries the offer and the linked company.
let h: EngineHarness;
let t: Tenant;
withEngine('Offer automations', (s) => ({ h, t } = s));
jest.setTimeout(60_000);

it('offer_sent starts an automation whose context holds the offer and its company', async () => {
  const d = h.dispatcher([t.workspaceId]);
  const id = await createAutomation(
    t.http,
    chainGraph({ triggerType: 'offer_sent' }, [
      action('create_activity', {
        description: 'Offer {{offer.offerNumber}} to {{company.name}}',
        activityType: 'note',
      }),
    ]),
  );
  await d.drainOnce();
  const company = (await t.http.post('/api/v1/companies', { name: 'Automated ApS' })).body.data._id;
  const offer = (
    await t.http.post('/api/v1/offers', {
      title: 'Boiler',
      companyRef: company,
      lineItems: [{ name: 'Boiler', unitPrice: 9000 }],
    })
  ).body.data;
  const sent = (await t.http.post(`/api/v1/offers/${offer._id}/send`)).body.data;
  await d.drainOnce();
  const [execution] = await waitFor(
    async () => {
      const runs = await h.executionsOf(id);
      return runs.length ? runs : null;
    },
    20_000,
    'the automation run',
  );
  expect(execution).toMatchObject({ triggerType: 'offer_sent', entityType: 'offer', entityId: offer._id });
  const done = await h.waitForExecution(execution!._id);
  expect(done.context).toMatchObject({
    offer: { _id: offer._id, offerNumber: sent.offerNumber },
    company: { name: 'Automated ApS' },
  });
  await d.stop();
});
