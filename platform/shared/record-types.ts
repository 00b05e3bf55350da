/**
 * The CRM record types that carry tags and custom fields and can be put on lists, imported,
 * exported, linked from timeline entries and addressed by automations. The one definition:
 * dependency-free so entities can use it; record-kinds.ts adds each type's behaviour.
 */
export const RECORD_TYPES = ['company', 'person', 'lead', 'deal'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const isRecordType = (value: unknown): value is RecordType =>
  (RECORD_TYPES as readonly unknown[]).includes(value);
