import { Company } from '../../modules/companies/company.entity';
import { newId } from '../../platform/ids';
import { forkForWorkspace } from '../../platform/orm/tenant';
import type { HttpClient, TestApp } from './app';
import { automationBody, insertExecution, workspaceCtx } from './automations';
import { insertDelivery } from './webhooks';
import { insertParkedDelivery } from './outbox';

import { insertScheduledSms, insertSms } from './sms';

import { createSequence, emailNode, insertEnrollment, line } from './sequences';
import { unique } from './unique';
import { moduleTestRecords } from './module-tests';
import { PNG_BYTES, uploadFile } from './files';

export async function createVia(http: HttpClient, path: string, body: Record<string, unknown>): Promise<string> {
  const res = await http.post(path, body);
  if (res.status !== 201) throw new Error(`factory POST ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data._id as string;
}

/** What a factory may need beyond the API (e.g. the app's ORM for rows no endpoint creates). */
export interface FactoryHelpers {
  app: TestApp;
}
export type Factory = (http: HttpClient, helpers?: FactoryHelpers) => Promise<string>;

/**
 * One factory per resource kind named in a route's `resources`; the tenant-isolation suite
 * fails for a route whose resource kind has no factory here.
 */
/** Custom-object kinds share one object per workspace, so a route's :slug and :id belong together. */
export const ISOLATION_OBJECT_SLUG = 'iso-objects';
async function isolationObject(http: HttpClient): Promise<string> {
  const res = await http.post('/api/v1/custom-objects', {
    slug: ISOLATION_OBJECT_SLUG,
    singular: 'Iso object',
    plural: 'Iso objects',
  });
  if (res.status === 201)
    await http.post(`/api/v1/custom-objects/${ISOLATION_OBJECT_SLUG}/fields`, {
      slug: 'name',
      label: 'Name',
      type: 'text',
    });
  else if (res.status !== 409) throw new Error(`custom object factory: ${res.status} ${JSON.stringify(res.body)}`);
  return ISOLATION_OBJECT_SLUG;
}

/** Comment id → its project task id (comments have no GET of their own). */
export const projectCommentTask = new Map<string, string>();

export const factories: Record<string, Factory> = {
  'custom-object': (http) => isolationObject(http),
  'custom-object-field': async (http) => {
    await isolationObject(http);
    return 'name';
  },
  'custom-object-record': async (http) =>
    createVia(http, `/api/v1/custom-objects/${await isolationObject(http)}/records`, { name: `Record ${unique()}` }),
  'custom-field': (http) =>
    createVia(http, '/api/v1/custom-fields', {
      entityType: 'company',
      key: `f${unique()}`,
      label: 'Factory field',
      type: 'text',
    }),
  list: (http) => createVia(http, '/api/v1/lists', { name: `List ${unique()}`, entityType: 'company' }),
  'filter-preset': (http) =>
    createVia(http, '/api/v1/filter-presets', { name: `Preset ${unique()}`, area: 'deals', visibility: 'workspace' }),
  'dashboard-layout': (http) =>
    createVia(http, '/api/v1/dashboard-layouts', { name: `Layout ${unique()}`, visibility: 'workspace' }),
  // Users are created by operators, not through the API: the factory yields the caller's own user.
  user: async (http) => (await http.get('/api/v1/whoami')).body.data.user._id as string,
  company: (http) =>
    createVia(http, '/api/v1/companies', {
      name: `Acme ${unique()}`,
      email: `info-${unique()}@acme.test`,
      tags: ['vip'],
    }),
  person: (http) =>
    createVia(http, '/api/v1/people', {
      firstName: `Ada ${unique()}`,
      emails: [{ email: `ada-${unique()}@example.test`, label: 'work' }],
    }),
  lead: (http) =>
    createVia(http, '/api/v1/leads', {
      title: `Lead ${unique()}`,
      email: `lead-${unique()}@example.test`,
      source: 'web',
      tags: ['warm'],
    }),
  'lead-scoring-rule': (http) =>
    createVia(http, '/api/v1/lead-scoring/rules', {
      name: `Rule ${unique()}`,
      field: 'hasEmail',
      condition: 'equals',
      value: true,
      points: 10,
    }),
  'lead-routing-rule': async (http) => {
    const userId = (await http.get('/api/v1/whoami')).body.data.user._id as string;
    return createVia(http, '/api/v1/lead-routing/rules', {
      name: `Route ${unique()}`,
      conditions: [{ field: 'source', operator: 'equals', value: `route-${unique()}` }],
      assignment: { type: 'user', userId },
    });
  },
  deal: (http) => createVia(http, '/api/v1/deals', { title: `Deal ${unique()}`, value: 1000, tags: ['hot'] }),
  flow: (http) =>
    createVia(http, '/api/v1/flows', {
      title: `Flow ${unique()}`,
      stages: [{ title: 'New' }, { title: 'Won', type: 'won' }],
    }),
  // Timeline records hang off a company created in the same workspace.
  activity: async (http) =>
    createVia(http, '/api/v1/activities', {
      type: 'meeting',
      summary: `Meeting ${unique()}`,
      companyId: await factories.company!(http),
    }),
  task: async (http) =>
    createVia(http, '/api/v1/tasks', {
      title: `Task ${unique()}`,
      company: await factories.company!(http),
      tags: ['todo'],
    }),
  note: async (http) =>
    createVia(http, '/api/v1/notes', { content: `<p>Note ${unique()}</p>`, company: await factories.company!(http) }),
  call: (http) =>
    createVia(http, '/api/v1/calls', {
      phone: '+45 12 34 56 78',
      subject: `Call ${unique()}`,
      direction: 'outbound',
      status: 'completed',
      duration: 60,
    }),
  event: (http) =>
    createVia(http, '/api/v1/events', {
      title: `Event ${unique()}`,
      start: '2030-01-01T10:00:00Z',
      end: '2030-01-01T11:00:00Z',
    }),
  agent: (http) => createVia(http, '/api/v1/agents', { name: `Agent ${unique()}`, goal: 'Qualify leads' }),
  automation: (http) => createVia(http, '/api/v1/automations', automationBody({ name: `Automation ${unique()}` })),
  // Only the engine creates executions: insert a finished one into the mirror directly.
  'automation-execution': async (http, helpers) => {
    if (!helpers) throw new Error('the automation-execution factory needs { app } as its second argument');
    const automationId = await factories.automation!(http);
    return (await insertExecution(await workspaceCtx(helpers.app, http), automationId))._id;
  },
  project: (http) => createVia(http, '/api/v1/projects', { title: `Project ${unique()}`, tags: ['fixed-price'] }),
  'project-task': async (http) =>
    createVia(http, `/api/v1/projects/${await factories.project!(http)}/tasks`, { title: `Project task ${unique()}` }),
  // A comment is read through its task's comment list: remember which task it belongs to.
  'project-comment': async (http) => {
    const taskId = await factories['project-task']!(http);
    const id = await createVia(http, `/api/v1/projects/tasks/${taskId}/comments`, {
      content: `<p>Comment ${unique()}</p>`,
    });
    projectCommentTask.set(id, taskId);
    return id;
  },
  'clip-card': async (http) =>
    createVia(http, '/api/v1/clip-cards', { project: await factories.project!(http), totalHours: 10, hourlyRate: 900 }),
  'webhook-subscription': (http) =>
    createVia(http, '/api/v1/webhooks/subscriptions', {
      url: 'https://example.com/hook',
      events: ['*'],
      name: `Hook ${unique()}`,
    }),
  // Deliveries are written by the outbox subscriber: insert a delivered one directly.
  'outbox-delivery': async (http, helpers) => {
    if (!helpers) throw new Error('the outbox-delivery factory needs { app } as its second argument');
    const ctx = await workspaceCtx(helpers.app, http);
    return insertParkedDelivery(helpers.app.runtime.deps.orm, ctx.actor.workspaceId);
  },
  'webhook-delivery': async (http, helpers) => {
    if (!helpers) throw new Error('the webhook-delivery factory needs { app } as its second argument');
    return insertDelivery(await workspaceCtx(helpers.app, http), await factories['webhook-subscription']!(http));
  },

  // SMS rows come from the gateway (sends, webhook): inserted directly, so no gateway is needed.
  sms: async (http, helpers) => (await insertSms(await workspaceCtx(helpers!.app, http)))._id,
  'sms-thread': async (http, helpers) => (await insertSms(await workspaceCtx(helpers!.app, http))).phoneNumber,
  'sms-scheduled': async (http, helpers) => (await insertScheduledSms(await workspaceCtx(helpers!.app, http)))._id,
  'sms-template': (http) =>
    createVia(http, '/api/v1/sms-templates', { name: `Template ${unique()}`, message: 'Hi {{firstName}}' }),

  'email-template': (http) =>
    createVia(http, '/api/v1/email-templates', {
      name: `Template ${unique()}`,
      category: 'follow-up',
      bodyHtml: '<p>Hi {{contact.firstName}}</p>',
      metadata: { subject: 'Hi' },
    }),
  'email-signature': (http) =>
    createVia(http, '/api/v1/email-signatures', { name: `Signature ${unique()}`, content: '<p>Best, Ann</p>' }),
  email: async (http, helpers) => {
    if (!helpers) throw new Error('the email factory needs { app } as its second argument');
    return (await import('./email')).insertEmail(helpers.app, http);
  },
  sequence: (http) => createSequence(http, line([emailNode()]), { active: false }),
  // Only the engine creates enrollments: insert a finished one into the mirror directly.
  'sequence-enrollment': async (http, helpers) => {
    if (!helpers) throw new Error('the sequence-enrollment factory needs { app } as its second argument');
    const sequenceId = await factories.sequence!(http);
    return (await insertEnrollment(await workspaceCtx(helpers.app, http), sequenceId))._id;
  },
  offer: (http) =>
    createVia(http, '/api/v1/offers', {
      title: `Offer ${unique()}`,
      lineItems: [{ name: 'Work', quantity: 2, unitPrice: 100 }],
    }),
  'offer-template': (http) =>
    createVia(http, '/api/v1/offer-templates', {
      name: `Template ${unique()}`,
      pages: [{ id: 'p1', title: 'Cover', elements: [] }],
    }),
  product: (http) => createVia(http, '/api/v1/products', { name: `Product ${unique()}`, unitPrice: 99.5 }),
  'catalog-item': (http) => createVia(http, '/api/v1/catalog', { name: `Catalog item ${unique()}`, unitPrice: 10 }),
  'support-ticket': (http) =>
    createVia(http, '/api/v1/support-tickets', { title: `Ticket ${unique()}`, priority: 'high', tags: ['vip'] }),
  'project-template': (http) =>
    createVia(http, '/api/v1/project-templates', {
      name: `Template ${unique()}`,
      taskTemplates: [{ title: 'Kick-off' }],
    }),
  file: async (http) => {
    const res = await uploadFile(http, PNG_BYTES, { filename: `factory-${unique()}.png` });
    if (res.status !== 201) throw new Error(`file factory: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data._id as string;
  },
  folder: (http) => createVia(http, '/api/v1/folders', { name: `Folder ${unique()}` }),
  'email-bulk': async (http, helpers) => {
    if (!helpers) throw new Error('the email-bulk factory needs { app } as its second argument');
    return (await import('./email')).insertEmailBulk(helpers.app, http);
  },
  'offer-type': (http) =>
    createVia(http, '/api/v1/offer-types', {
      name: `Offer type ${unique()}`,
      requiredInputFields: [{ fieldId: 'hours', label: 'Hours', type: 'number' }],
      pricingRules: {
        rules: [
          { name: 'Work', then: [{ type: 'add_line', name: 'Work', quantityExpression: 'hours', unitPrice: 100 }] },
        ],
      },
    }),
  // Calculator templates are the active offer types (same id).
  'calculator-template': (http) => factories['offer-type']!(http),
};

// The factories of the features under modules/ (their own __tests__/factories.ts), merged last: they import createVia.
Object.assign(factories, moduleTestRecords<Factory>('factories', factories));

export const makeCompany = (http: HttpClient, body: Record<string, unknown> = {}) =>
  http.post('/api/v1/companies', { name: `Company ${unique()}`, ...body });
export const makePerson = (http: HttpClient, body: Record<string, unknown> = {}) =>
  http.post('/api/v1/people', { firstName: `Person ${unique()}`, ...body });
export const makeLead = (http: HttpClient, body: Record<string, unknown> = {}) =>
  http.post('/api/v1/leads', { title: `Lead ${unique()}`, ...body });

/**
 * `count` companies (named `${prefix} ${i}`) written straight to the workspace's table, for tests that need
 * hundreds of rows (as many API creates would dominate the suite's time); returns their ids.
 */
export async function seedCompanies(
  app: TestApp,
  workspaceId: string,
  count: number,
  prefix: string,
): Promise<string[]> {
  const em = forkForWorkspace(app.runtime.deps.orm.em, workspaceId);
  const ids = Array.from({ length: count }, (_, i) => {
    const now = new Date();
    return em.create(Company, { _id: newId(now), workspaceId, createdAt: now, updatedAt: now, name: `${prefix} ${i}` })
      ._id;
  });
  await em.flush();
  return ids;
}

export { unique };
