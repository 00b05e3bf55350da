import type { InputField, RuleInput } from './pricing.schemas';

// Starter rules per industry (GET /offer-types/rule-templates). Each names the input fields it reads,
// so a client can copy fields and rule into an offer type; every template passes validation (tested).

export const INDUSTRIES = ['IT', 'Håndværk', 'Generelt'] as const;
export type Industry = (typeof INDUSTRIES)[number];

export interface RuleTemplate {
  key: string;
  industry: Industry;
  name: string;
  description: string;
  requiredInputFields: InputField[];
  rule: RuleInput;
}

const num = (fieldId: string, label: string, unit?: string): InputField => ({
  fieldId,
  label,
  type: 'number',
  ...(unit ? { unit } : {}),
});
const check = (fieldId: string, label: string): InputField => ({ fieldId, label, type: 'checkbox' });

export const RULE_TEMPLATES: RuleTemplate[] = [
  {
    key: 'it-development-hours',
    industry: 'IT',
    name: 'Development hours',
    description: 'Adds development hours from the estimate at the hourly rate.',
    requiredInputFields: [num('estimatedHours', 'Estimated hours', 'hours')],
    rule: {
      name: 'Development hours',
      when: { all: [{ subject: 'field.estimatedHours', operator: 'greater_than', value: 0 }] },
      then: [
        { type: 'add_line', name: 'Development', quantityExpression: 'estimatedHours', unitPrice: 1100, unit: 'hours' },
      ],
    },
  },
  {
    key: 'it-project-management',
    industry: 'IT',
    name: 'Project management 15%',
    description: 'Adds project management as 15% of the development hours (rounded up to whole hours).',
    requiredInputFields: [num('estimatedHours', 'Estimated hours', 'hours')],
    rule: {
      name: 'Project management',
      when: { all: [{ subject: 'field.estimatedHours', operator: 'greater_than', value: 0 }] },
      then: [
        {
          type: 'add_line',
          name: 'Project management',
          quantityExpression: 'ceil(estimatedHours * 0.15)',
          unitPrice: 1100,
          unit: 'hours',
        },
      ],
    },
  },
  {
    key: 'it-rush-surcharge',
    industry: 'IT',
    name: 'Rush delivery +25%',
    description: 'A 25% surcharge on every line when rush delivery is ticked.',
    requiredInputFields: [check('rush', 'Rush delivery')],
    rule: {
      name: 'Rush delivery',
      when: { all: [{ subject: 'field.rush', operator: 'is_true' }] },
      then: [{ type: 'percent_surcharge', percent: 25, label: 'Rush delivery' }],
    },
  },
  {
    key: 'it-volume-discount',
    industry: 'IT',
    name: 'Volume discount over 100 hours',
    description: '10% off when the estimate exceeds 100 hours.',
    requiredInputFields: [num('estimatedHours', 'Estimated hours', 'hours')],
    rule: {
      name: 'Volume discount',
      when: { all: [{ subject: 'field.estimatedHours', operator: 'greater_than', value: 100 }] },
      then: [{ type: 'percent_discount', percent: 10, label: 'Volume discount' }],
    },
  },
  {
    key: 'it-hosting',
    industry: 'IT',
    name: 'Hosting subscription',
    description: 'Adds 12 months of hosting when hosting is ticked.',
    requiredInputFields: [check('hosting', 'Hosting')],
    rule: {
      name: 'Hosting',
      when: { all: [{ subject: 'field.hosting', operator: 'is_true' }] },
      then: [{ type: 'add_line', name: 'Hosting (12 months)', quantity: 12, unitPrice: 299, unit: 'months' }],
    },
  },
  {
    key: 'craft-labour',
    industry: 'Håndværk',
    name: 'Labour from the area',
    description: 'Labour hours from the area (0.8 h per m²) at the hourly rate.',
    requiredInputFields: [num('area', 'Area', 'm²')],
    rule: {
      name: 'Labour',
      when: { all: [{ subject: 'field.area', operator: 'greater_than', value: 0 }] },
      then: [
        {
          type: 'add_line',
          name: 'Labour',
          quantityExpression: 'roundTo(area * 0.8, 1)',
          unitPrice: 525,
          unit: 'hours',
        },
      ],
    },
  },
  {
    key: 'craft-driving',
    industry: 'Håndværk',
    name: 'Driving',
    description: 'Driving per kilometre both ways.',
    requiredInputFields: [num('distanceKm', 'Distance', 'km')],
    rule: {
      name: 'Driving',
      when: { all: [{ subject: 'field.distanceKm', operator: 'greater_than', value: 0 }] },
      then: [{ type: 'add_line', name: 'Driving', quantityExpression: 'distanceKm * 2', unitPrice: 3.79, unit: 'km' }],
    },
  },
  {
    key: 'craft-materials-waste',
    industry: 'Håndværk',
    name: 'Materials waste +10%',
    description: 'Multiplies the quantity of material lines (category "materials") by 1.1 for waste.',
    requiredInputFields: [],
    rule: {
      name: 'Materials waste',
      when: { all: [{ subject: 'line.category', operator: 'equals', value: 'materials' }] },
      then: [{ type: 'multiply_quantity', factor: 1.1 }],
    },
  },
  {
    key: 'craft-weekend',
    industry: 'Håndværk',
    name: 'Weekend work +50%',
    description: 'A 50% surcharge on labour when the work is done on a weekend.',
    requiredInputFields: [check('weekend', 'Weekend work')],
    rule: {
      name: 'Weekend surcharge',
      when: {
        all: [
          { subject: 'field.weekend', operator: 'is_true' },
          { subject: 'line.name', operator: 'equals', value: 'Labour' },
        ],
      },
      then: [{ type: 'percent_surcharge', percent: 50, label: 'Weekend' }],
    },
  },
  {
    key: 'craft-minimum-charge',
    industry: 'Håndværk',
    name: 'Minimum charge',
    description: 'Every job costs at least 1,500 excl. VAT.',
    requiredInputFields: [],
    rule: { name: 'Minimum charge', then: [{ type: 'minimum_total', amount: 1500, label: 'Minimum charge' }] },
  },
  {
    key: 'general-existing-customer',
    industry: 'Generelt',
    name: 'Existing customer 5%',
    description: '5% off for existing customers.',
    requiredInputFields: [],
    rule: {
      name: 'Existing customer',
      when: { all: [{ subject: 'customer.isExisting', operator: 'is_true' }] },
      then: [{ type: 'percent_discount', percent: 5, label: 'Existing customer' }],
    },
  },
  {
    key: 'general-manual-discount',
    industry: 'Generelt',
    name: 'Manual discount',
    description: 'Applies the manual discount entered on the offer.',
    requiredInputFields: [],
    rule: {
      name: 'Manual discount',
      when: { all: [{ subject: 'offer.manualDiscountPercent', operator: 'greater_than', value: 0 }] },
      then: [{ type: 'percent_discount', expression: 'min(manualDiscountPercent, 100)', label: 'Discount' }],
    },
  },
  {
    key: 'general-discount-cap',
    industry: 'Generelt',
    name: 'Block discounts above 25%',
    description: 'A manual discount above 25% needs another offer type (or a manager).',
    requiredInputFields: [],
    rule: {
      name: 'Discount cap',
      when: { all: [{ subject: 'offer.manualDiscountPercent', operator: 'greater_than', value: 25 }] },
      then: [{ type: 'block', message: 'Manual discounts above 25% need approval' }],
    },
  },
  {
    key: 'general-export-vat',
    industry: 'Generelt',
    name: 'No VAT outside Denmark',
    description: 'VAT 0% for customers outside Denmark (reverse charge / export).',
    requiredInputFields: [],
    rule: {
      name: 'Export VAT',
      phase: 'totals',
      when: {
        all: [
          { subject: 'customer.country', operator: 'is_not_empty' },
          { subject: 'customer.country', operator: 'not_in', value: ['DK', 'Denmark', 'Danmark'] },
        ],
      },
      then: [
        { type: 'set_vat', rate: 0 },
        { type: 'warn', message: "VAT 0%: check the customer's VAT number (reverse charge)" },
      ],
    },
  },
  {
    key: 'general-small-order',
    industry: 'Generelt',
    name: 'Warn on small orders',
    description: 'Warns when the subtotal is below 1,000.',
    requiredInputFields: [],
    rule: {
      name: 'Small order',
      when: { all: [{ subject: 'subtotal', operator: 'less_than', value: 1000 }] },
      then: [{ type: 'warn', message: 'The subtotal is below 1,000' }],
    },
  },
];

export const ruleTemplates = (industry?: Industry): RuleTemplate[] =>
  RULE_TEMPLATES.filter((t) => !industry || t.industry === industry);
