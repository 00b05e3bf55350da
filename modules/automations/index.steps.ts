/**
 * What sequence steps reuse of the automation engine: the record actions (update record, set access, create task,
 * recall) with their environment type, and the entity context loaders. A public surface of its own (see index.ts).
 */
export { contactView, loadEntityContext } from './engine/context';
export { createRecallAction, createTaskAction } from './actions/timeline';
export { setAccessAction, updateRecordAction } from './actions/records';
export type { ActionEnv, ActionHandler } from './actions/types';
