/**
 * The public surface of the automations module: what other modules, the worker and the composition import. Inside
 * the folder, files import each other directly; outside, only this file and the declaration files the registries
 * read by suffix (`*.module.ts`, `*.resource.ts`, `*.events.ts`, `*.messages.ts`, `*.workflow.ts`, `*.pure.ts`), and
 * parts for sequences, which the engine itself uses (index.ts would close an import cycle): `index.schemas.ts` (the
 * definition schemas, pure), `index.actor.ts` (the actor automations act as) and `index.steps.ts` (the record
 * actions and context loaders sequence steps reuse).
 */
export { createRunStarter, type RunStarter } from './engine/starter';
export { reconcileSchedules } from './engine/schedules';
export { inFlightLimit, type InFlightLimit } from './engine/in-flight';
export { pruneSkips } from './engine/skips';
export type { SequenceEnroller } from './actions/deps';
