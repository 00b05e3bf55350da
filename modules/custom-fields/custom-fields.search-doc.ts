import { SEARCH_OPERATORS } from './search-conditions';
import { RECORD_TYPES } from '../../platform/shared/record-kinds';
import { MAX_SEARCH_FILTERS, type CustomFieldSearchDescriptionView } from './custom-fields.schemas';

const OPERATOR_DOC: Record<(typeof SEARCH_OPERATORS)[number], string> = {
  equals: 'value (string, number or boolean) equals the stored value exactly (case-sensitive, "5" ≠ 5)',
  not_equals:
    'the record has a value for the key and it differs (records without the key do not match; combine with not_exists)',
  contains: 'text value contains the string (case-insensitive); for multi_select arrays: the array has the element',
  greater_than: 'number: numerically greater; ISO date string: later (compared as ISO text)',
  less_than: 'number: numerically smaller; ISO date string: earlier (compared as ISO text)',
  exists: 'the record has a non-null value for the key (value is ignored)',
  not_exists: 'the record has no value for the key (value is ignored)',
  in: 'value is an array (1-100) of scalars; matches when the stored value, or any element of a stored array, is in it',
};

/** GET /custom-fields/search: how to call the POST. */
export function searchDescription(): CustomFieldSearchDescriptionView {
  return {
    method: 'POST',
    path: '/api/v1/custom-fields/search',
    description:
      'Finds records of one entity type by custom field values. Every filter must match (AND). Keys need not have a definition (free-form values are searchable too). Results are the full records, newest first.',
    body: {
      entityType: { type: 'string', required: true, enum: RECORD_TYPES },
      filters: {
        type: 'array',
        required: true,
        minItems: 1,
        maxItems: MAX_SEARCH_FILTERS,
        items: {
          key: 'string (1-100), the custom field key',
          operator: SEARCH_OPERATORS.join(' | '),
          value: 'depends on the operator',
        },
      },
      page: { type: 'integer', default: 1, minimum: 1 },
      limit: { type: 'integer', default: 20, minimum: 1, maximum: 100 },
    },
    operators: SEARCH_OPERATORS.map((name) => ({ name, description: OPERATOR_DOC[name] })),
    response: '{ data: [records], page, limit, total }',
    example: {
      request: {
        entityType: 'company',
        filters: [
          { key: 'segment', operator: 'equals', value: 'SMB' },
          { key: 'seats', operator: 'greater_than', value: 10 },
          { key: 'renewalDate', operator: 'less_than', value: '2027-01-01' },
        ],
        page: 1,
        limit: 20,
      },
      response: {
        data: [
          {
            _id: '…',
            name: 'Acme ApS',
            customFields: [
              { name: 'segment', value: 'SMB' },
              { name: 'seats', value: 25 },
            ],
          },
        ],
        page: 1,
        limit: 20,
        total: 1,
      },
    },
  };
}
