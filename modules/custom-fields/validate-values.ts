import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { CustomFieldDefinition, type CustomFieldEntityType } from './custom-field-definition.entity';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Why `value` does not fit the definition, or null when it does. `null` values always fit (they clear). */
export function customFieldValueError(
  def: Pick<CustomFieldDefinition, 'type' | 'options'>,
  value: unknown,
): string | null {
  if (value === null || value === undefined) return null;
  const optionValues = def.options.map((o) => o.value);
  switch (def.type) {
    case 'text':
    case 'textarea':
      return typeof value === 'string'
        ? value.length > 10_000
          ? 'must be at most 10000 characters'
          : null
        : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && DATE_RE.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be an ISO 8601 date';
    case 'email':
      return typeof value === 'string' && EMAIL_RE.test(value) ? null : 'must be an e-mail address';
    case 'url':
      return typeof value === 'string' && /^https?:\/\/\S+$/i.test(value) ? null : 'must be an http(s) URL';
    case 'phone':
      return typeof value === 'string' && /^[+\d][\d\s().-]{2,49}$/.test(value) ? null : 'must be a phone number';
    case 'select':
      return typeof value === 'string' && optionValues.includes(value)
        ? null
        : `must be one of: ${optionValues.join(', ')}`;
    case 'multi_select':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && optionValues.includes(v))
        ? null
        : `must be an array of: ${optionValues.join(', ')}`;
    default:
      return null;
  }
}

/**
 * Validates custom field values against the workspace's definitions for the entity type: a defined
 * key with a wrong value is a 400 naming the field; undefined keys are free-form and pass. With
 * `requireAll` (creates), required definitions must have a value.
 */
export async function assertCustomFieldValues(
  ctx: Ctx,
  entityType: CustomFieldEntityType,
  values: Record<string, unknown>,
  opts: { requireAll?: boolean } = {},
): Promise<void> {
  const defs = await ctx.em.find(CustomFieldDefinition, { entityType });
  if (!defs.length) return;
  for (const def of defs) {
    const value = values[def.key];
    if (opts.requireAll && def.required && (value === undefined || value === null || value === '')) {
      throw validation(`customFields.${def.key}: is required`, [
        { path: `customFields.${def.key}`, error: 'is required' },
      ]);
    }
    if (!(def.key in values)) continue;
    const error = customFieldValueError(def, value);
    if (error) throw validation(`customFields.${def.key}: ${error}`, [{ path: `customFields.${def.key}`, error }]);
  }
}
