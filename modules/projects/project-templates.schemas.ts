import { z } from 'zod';
import { TASK_PRIORITIES } from '../tasks';
import { boolParam, pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { createProjectBody, projectTaskView, projectView } from './projects.schemas';
import { idView, openObjectView, recordViewFields } from '../../platform/shared/views';
import { refField } from '../../platform/shared/record-fields';
import { ref } from '../../platform/references/refs';

const taskTemplate = z.object({
  title: requiredText(300),
  description: clearableText(10_000).optional(),
  stage: z
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(1)
    .max(1000)
    .nullable()
    .optional()
    .describe('task stage id (task flow)'),
  priority: z
    .enum(TASK_PRIORITIES, { message: `must be one of ${TASK_PRIORITIES.join(', ')}` })
    .nullable()
    .optional(),
});
const milestoneTemplate = z.object({
  title: requiredText(300),
  description: clearableText(10_000).optional(),
  dueInDays: z
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(0)
    .max(3650)
    .nullable()
    .optional()
    .describe('due date = project creation + days'),
});
const { description, status, priority, owner, tags, customFields, budget, stage, minTimeEntryWords } =
  createProjectBody.shape;
/** Project fields a template presets (JSON-safe: no dates). */
const projectData = z
  .strictObject(
    { description, status, priority, owner, tags, customFields, budget, stage, minTimeEntryWords },
    { message: 'unknown key' },
  )
  .partial();
const portalSettings = z
  .record(z.string().max(100), z.unknown())
  .refine((o) => JSON.stringify(o).length <= 20_000, 'must be at most 20000 characters as JSON');

export const createTemplateBody = z.object({
  name: requiredText(300),
  description: clearableText(10_000).optional(),
  flowRef: ref('flow', clearableText(100))
    .optional()
    .describe('a deal flow (pipeline) of this workspace, kept for reference: projects use one fixed stage flow'),
  taskTemplates: z.array(taskTemplate).max(200, 'at most 200 task templates').optional(),
  milestoneTemplates: z.array(milestoneTemplate).max(100, 'at most 100 milestone templates').optional(),
  projectData: projectData
    .optional()
    .describe(
      'project fields copied into the project: description, status, priority, owner, tags, customFields, budget, stage, minTimeEntryWords',
    ),
  portalSettings: portalSettings.optional(),
  isDefault: z.boolean({ message: 'must be a boolean' }).optional().describe('one default per workspace'),
});
export const updateTemplateBody = createTemplateBody
  .partial()
  .extend({ isActive: z.boolean({ message: 'must be a boolean' }).optional() });

export const listTemplatesQuery = z.object({
  ...pageParams(100),
  includeInactive: boolParam.optional().describe('true: also deactivated (deleted) templates'),
});

const lineItem = z.object({
  title: z.string().max(500).optional(),
  name: z.string().max(500).optional(),
  description: z.string().max(10_000).nullable().optional(),
  quantity: z.number({ message: 'must be a number' }).min(0).max(1e9).optional(),
  unitPrice: z.number({ message: 'must be a number' }).min(-1e12).max(1e12).optional(),
  price: z.number({ message: 'must be a number' }).min(-1e12).max(1e12).optional().describe('alias of unitPrice'),
  unit: z.string().max(50).nullable().optional(),
  discount: z.number({ message: 'must be a number' }).min(0).max(100).optional().describe('percent'),
  productId: z.string().max(100).nullable().optional(),
});

// templateId is required; an unknown one is 400 (a reference), a deactivated one 404.
export const fromTemplateBody = z.object({
  templateId: ref('project-template', objectId).describe('an active project template'),
  title: requiredText(300).optional().describe('default: offerTitle, else the template name'),
  company: ref('company', refField).optional(),
  personRef: ref('person', refField).optional(),
  offerData: z
    .object({
      offerId: ref('offer', z.string().trim().min(1).max(100)).optional().describe('an offer of this workspace'),
      offerTitle: requiredText(300).optional(),
      lineItems: z
        .array(lineItem)
        .max(500, 'at most 500 line items')
        .optional()
        .describe('become project lines (quantity × unitPrice less discount %)'),
      dealRef: ref('deal', refField).optional(),
      leadRef: ref('lead', refField).optional(),
    })
    .optional(),
});

/** What the service writes: the parsed updateTemplateBody (create bodies add their required fields). */
export type TemplateInput = z.infer<typeof updateTemplateBody>;

/** What createFromTemplate takes: the parsed body of POST /projects/from-template. */
export type FromTemplateInput = z.infer<typeof fromTemplateBody>;

/** Project fields a template stores (the parsed `projectData` of its body). */
export type TemplateProjectData = z.infer<typeof projectData>;

// ---- Views (response schemas) ----

const taskTemplateView = z.object({
  title: z.string(),
  description: z.string().nullable().optional(),
  stage: z.number().int().nullable().optional().describe('task stage id (task flow)'),
  priority: z.enum(TASK_PRIORITIES).nullable().optional(),
});
const milestoneTemplateView = z.object({
  title: z.string(),
  description: z.string().nullable().optional(),
  dueInDays: z.number().int().nullable().optional().describe('due date = project creation + days'),
});
const templateProjectDataView = projectView
  .pick({ description: true, status: true, priority: true, owner: true, tags: true, customFields: true })
  .extend({
    budget: z
      .object({ hours: z.number().nullable(), amount: z.number().nullable(), hourlyRate: z.number().nullable() })
      .partial()
      .nullable(),
    stage: z.number().int(),
    minTimeEntryWords: projectView.shape.minTimeEntryWords,
  })
  .partial()
  .describe('project fields copied into projects made from the template (only the keys given)');

export const projectTemplateView = z.object({
  ...recordViewFields,
  name: z.string(),
  description: z.string().nullable(),
  flowRef: z.string().nullable().describe('project flow reference (informational)'),
  taskTemplates: z.array(taskTemplateView),
  milestoneTemplates: z.array(milestoneTemplateView),
  projectData: templateProjectDataView,
  portalSettings: openObjectView.describe('portal settings copied into projects (open)'),
  isDefault: z.boolean().describe('one default per workspace'),
  isActive: z.boolean().describe('false once deleted (soft delete)'),
  createdBy: idView.describe('user id'),
});
export type ProjectTemplateView = z.infer<typeof projectTemplateView>;

/** POST /projects/from-template: the project with the tasks copied from the template. */
export const projectFromTemplateView = projectView.extend({ tasks: z.array(projectTaskView) });
export type ProjectFromTemplateView = z.infer<typeof projectFromTemplateView>;
