import type { CustomFieldOption, CustomFieldType } from './custom-field-definition.entity';

/** Keys are what clients write in `customFields`: a letter, then letters, digits or underscores. */
export const CUSTOM_FIELD_KEY_RE = /^[a-z][a-zA-Z0-9_]{0,63}$/;
export const MAX_DEFINITIONS_PER_TYPE = 100;
export const MAX_OPTIONS = 200;

export const isSelectType = (type: CustomFieldType): boolean => type === 'select' || type === 'multi_select';

/** Why a definition's type/options pair is inconsistent, or null. Checked on create and after a PUT merge. */
export function definitionProblem(def: {
  type: CustomFieldType;
  options: readonly CustomFieldOption[];
}): string | null {
  if (isSelectType(def.type)) {
    if (!def.options.length) return `options: a ${def.type} field needs at least one option`;
    const seen = new Set<string>();
    for (const option of def.options) {
      if (seen.has(option.value)) return `options: duplicate option value "${option.value}"`;
      seen.add(option.value);
    }
    return null;
  }
  return def.options.length ? `options: only select and multi_select fields have options (type is ${def.type})` : null;
}
