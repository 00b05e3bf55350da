import { z } from 'zod';
import { idView, openObjectView, recordViewFields } from '../../platform/shared/views';
import { ACTION_TYPES, FIELD_TYPES, OPERATORS, PHASES, VAT_DISPLAY_MODES } from './pricing.schemas';
import { INDUSTRIES } from './rule-templates';

// Response views of offer types, their rules, simulations and calculator templates and submissions.

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const phase = z.enum(PHASES);
const scope = z.enum(['offer', 'line']);
const vatDisplayMode = z.enum(VAT_DISPLAY_MODES);

export const inputFieldView = z.object({
  fieldId: z.string(),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  unit: z.string().optional(),
  options: z
    .array(
      z.union([
        z.string(),
        z.number(),
        z.object({ value: z.union([z.string(), z.number()]), label: z.string().optional() }),
      ]),
    )
    .optional(),
  required: z.boolean().optional(),
  expression: z.string().optional().describe('computed fields: the formula'),
  min: z.number().optional(),
  max: z.number().optional(),
  step: z.number().optional(),
  defaultValue: scalar.optional(),
  helpText: z.string().optional(),
});

const conditionNodes = z
  .array(z.unknown())
  .optional()
  .describe('conditions { subject, operator, value } or { expression }, or nested groups');
const conditionGroup = z
  .object({ all: conditionNodes, any: conditionNodes })
  .describe('every `all` and at least one `any`; groups nest (at most 3 deep)');
const actionView = z
  .object({ type: z.enum(ACTION_TYPES) })
  .catchall(z.unknown())
  .describe('{ type, …params } (GET /offer-types/rule-reference lists each type and its params)');

/** A rule as given (a draft may omit id, order and phase; stored rules always have them). */
export const ruleInputView = z.object({
  id: z.string().optional(),
  name: z.string(),
  description: z.string().optional(),
  phase: phase.optional(),
  order: z.number().int().optional(),
  enabled: z.boolean().optional(),
  scope: scope.optional(),
  stopProcessing: z.boolean().optional(),
  when: conditionGroup.optional(),
  then: z.array(actionView),
});
export const ruleView = ruleInputView.extend({ id: z.string(), phase, order: z.number().int() });

export const pricingProductView = z.object({
  id: z.string(),
  name: z.string(),
  unitPrice: z.number(),
  unit: z.string().optional(),
  vatRate: z.number().optional(),
  category: z.string().optional(),
  pricingType: z.enum(['fixed', 'advanced']).optional(),
  tieredPricing: z
    .object({
      mode: z.enum(['volume', 'graduated']).optional(),
      tiers: z.array(z.object({ upTo: z.number().nullable().optional(), unitPrice: z.number() })),
    })
    .optional(),
  conditionalRules: z
    .array(z.object({ when: conditionGroup, unitPrice: z.number(), label: z.string().optional() }))
    .optional(),
  attributes: z.record(z.string(), scalar).optional(),
});

export const pricingRulesView = z.object({
  rules: z.array(ruleView),
  vatRate: z.number(),
  currency: z.string(),
  vatDisplayMode,
  products: z.array(pricingProductView),
});

export const ruleSummaryView = z.object({
  id: z.string(),
  name: z.string(),
  phase,
  order: z.number().int(),
  scope,
  enabled: z.boolean(),
  summary: z.string().describe('the rule in one line of prose'),
});

export const offerTypeView = z.object({
  ...recordViewFields,
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  isDefault: z.boolean(),
  isActive: z.boolean(),
  defaultTemplateId: z.string().nullable(),
  requiredInputFields: z.array(inputFieldView),
  pricingRules: pricingRulesView,
  offerSettings: openObjectView,
  customPlaceholders: z.array(z.unknown()),
  createdBy: idView,
  ruleSummaries: z.array(ruleSummaryView).optional().describe('on create and update, and on GET with describe=true'),
});
export type OfferTypeView = z.infer<typeof offerTypeView>;

const pathError = z.object({ path: z.string(), error: z.string() });

export const offerTypeValidationView = z.object({
  valid: z.boolean(),
  errors: z.array(pathError),
  warnings: z.array(pathError),
  ruleSummaries: z.array(ruleSummaryView),
  normalizedRules: z.array(ruleView).describe('the rules with id, order and phase filled'),
});
export type OfferTypeValidationView = z.infer<typeof offerTypeValidationView>;

export const ruleTemplatesView = z.object({
  industries: z.array(z.enum(INDUSTRIES)),
  templates: z.array(
    z.object({
      key: z.string(),
      industry: z.enum(INDUSTRIES),
      name: z.string(),
      description: z.string(),
      requiredInputFields: z.array(inputFieldView),
      rule: ruleInputView,
    }),
  ),
});
export type RuleTemplatesView = z.infer<typeof ruleTemplatesView>;

const help = z.object({ description: z.string() });
export const ruleReferenceView = z.object({
  ruleShape: z.record(z.string(), z.string()).describe('rule key → what it means'),
  phases: z.array(help.extend({ phase })),
  subjects: z.array(help.extend({ subject: z.string() })),
  operators: z.array(help.extend({ operator: z.enum(OPERATORS), aliases: z.array(z.string()) })),
  actionTypes: z.array(help.extend({ type: z.enum(ACTION_TYPES), params: z.string() })),
  targets: z.string(),
  fieldTypes: z.array(z.enum(FIELD_TYPES)),
  expressions: z.object({
    maxLength: z.number().int(),
    arithmetic: z.array(z.string()),
    comparison: z.array(z.string()),
    logic: z.array(z.string()),
    functions: z.record(z.string(), z.string()),
    constants: z.array(z.string()),
    literals: z.string(),
    variables: z.string(),
    forbidden: z.string(),
  }),
  products: z.object({
    shape: z.string(),
    pricingTypes: z.object({ fixed: z.string(), advanced: z.string() }),
    tierModes: z.object({ volume: z.string(), graduated: z.string() }),
  }),
  vat: z.object({
    displayModes: z.object({ excl: z.string(), incl: z.string(), both: z.string() }),
    default: z.object({ vatRate: z.number(), currency: z.string(), vatDisplayMode }),
    rule: z.string(),
  }),
  money: z.string(),
  vatDisplayModes: z.array(vatDisplayMode),
});
export type RuleReferenceView = z.infer<typeof ruleReferenceView>;

// ---- evaluation (simulate, calculate) ----

const message = z.object({ ruleId: z.string().nullable(), ruleName: z.string().nullable(), message: z.string() });
const priced = z.object({ unitPrice: z.number(), total: z.number() });

export const evaluatedLineView = z.object({
  id: z.string(),
  lineKey: z.string().nullable(),
  source: z.enum(['input', 'rule']),
  ruleId: z.string().nullable(),
  productId: z.string().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  unit: z.string().nullable(),
  category: z.string().nullable(),
  quantity: z.number(),
  unitPrice: z.number(),
  priceSource: z.string().describe('input, product, tiers:<mode>, conditional, rule, …'),
  baseTotal: z.number(),
  adjustments: z.array(
    z.object({ ruleId: z.string(), label: z.string(), percent: z.number().optional(), amount: z.number() }),
  ),
  total: z.number(),
  totalMinor: z.number().int(),
  vatRate: z.number(),
  vatAmount: z.number(),
  display: z.union([
    priced.extend({ mode: z.enum(['excl', 'incl']) }),
    z.object({ mode: z.literal('both'), excl: priced, incl: priced }),
  ]),
});

const evaluationFields = {
  currency: z.string(),
  vatDisplayMode,
  fields: z.record(z.string(), scalar.nullable()).describe('input values after the rules ran'),
  computedFields: z.record(z.string(), scalar.nullable()),
  lines: z.array(evaluatedLineView),
  adjustments: z.array(z.object({ ruleId: z.string(), label: z.string(), amount: z.number(), vatRate: z.number() })),
  subtotal: z.number(),
  vatAmount: z.number(),
  total: z.number(),
  vatBreakdown: z.array(z.object({ rate: z.number(), base: z.number(), vat: z.number() })),
  amountsMinor: z.object({ subtotal: z.number().int(), vatAmount: z.number().int(), total: z.number().int() }),
  warnings: z.array(message),
  blocks: z.array(message),
  blocked: z.boolean(),
  trace: z.array(
    z.object({
      ruleId: z.string(),
      ruleName: z.string(),
      phase: z.string(),
      order: z.number(),
      scope,
      matched: z.boolean(),
      matchedLines: z.array(z.string()).optional(),
      skipped: z.enum(['disabled', 'stopped']).optional(),
      effects: z.array(
        z.object({
          action: z.enum(ACTION_TYPES),
          lineId: z.string().optional(),
          description: z.string(),
          amount: z.number().optional(),
          error: z.string().optional(),
        }),
      ),
    }),
  ),
};

export const simulationView = z.object({
  ...evaluationFields,
  missingFields: z.array(z.string()).describe('required inputs without a value (a warning here)'),
});
export type SimulationView = z.infer<typeof simulationView>;

export const calculationView = z.object({
  templateId: idView,
  submissionId: idView.optional().describe('with save: true'),
  ...evaluationFields,
});
export type CalculationView = z.infer<typeof calculationView>;

// ---- calculator templates and submissions ----

const calculatorTemplateFields = {
  _id: idView,
  offerTypeId: idView.describe('the same id as the offer type'),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  isDefault: z.boolean(),
  inputFields: z.array(inputFieldView),
  vatRate: z.number(),
  currency: z.string(),
  vatDisplayMode,
  createdAt: recordViewFields.createdAt,
  updatedAt: recordViewFields.updatedAt,
};
export const calculatorTemplateSummaryView = z.object({
  ...calculatorTemplateFields,
  ruleCount: z.number().int(),
});
export type CalculatorTemplateSummaryView = z.infer<typeof calculatorTemplateSummaryView>;
export const calculatorTemplateView = z.object({ ...calculatorTemplateFields, pricingRules: pricingRulesView });
export type CalculatorTemplateView = z.infer<typeof calculatorTemplateView>;

export const calculatorSubmissionView = z.object({
  _id: idView,
  templateId: idView,
  templateName: z.string(),
  offerId: z.string().nullable(),
  inputs: openObjectView.describe('the inputs as given'),
  context: openObjectView.describe('{ lines, customer, offer, products } as given'),
  result: openObjectView.describe('the calculation as answered then (frozen)'),
  currency: z.string(),
  blocked: z.boolean(),
  createdBy: idView,
  createdAt: recordViewFields.createdAt,
  subtotal: z.number(),
  total: z.number(),
});
export type CalculatorSubmissionView = z.infer<typeof calculatorSubmissionView>;
