/**
 * Kinds of records that activities, tasks, notes, calls and events may point at. A leaf of its own: the timeline
 * schemas need the type, and references.ts (which checks the ids) imports the record modules, whose services import
 * the timeline; declared in references.ts it made the cycle companies → timeline → references → companies.
 */
export type RefKind = 'company' | 'person' | 'lead' | 'deal' | 'project' | 'customObjectRecord';
