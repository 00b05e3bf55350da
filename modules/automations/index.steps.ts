/**
 * What sequence steps reuse of the automation engine: the record actions (update record, set access, create task,
 * recall) with their environment type, the entity context loaders, and which errors no retry can fix. A public
 * surface of its own (see index.ts).
 */
export { loadEntityContext } from './engine/context';
export { createRecallAction, createTaskAction } from './actions/timeline';
export { setAccessAction, updateRecordAction } from './actions/records';
export { isPermanentError } from './actions/permanent-errors';
export type { ActionEnv, ActionHandler } from './actions/types';
