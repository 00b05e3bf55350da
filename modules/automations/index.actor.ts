/**
 * The actor automations (and sequences) act as, and the workspace facts the engine reads: a public surface of its own
 * (see index.ts), loading only the workspace entities.
 */
export { automationActor, automationActorId, workspaceInfo, FANOUT_CAP, type WorkspaceInfo } from './engine/workspace';
