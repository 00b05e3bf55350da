/**
 * What the engine needs from the workflow engine, as a port: domain/ never imports Temporal
 * (house rule 2). The Temporal adapter is infra/automation-client.ts.
 */
import type { ScheduleSpecData } from '../schedule';
import type { ExecutionWorkflowInput } from './types';

export interface StartWorkflowRequest {
  workflowId: string;
  input: ExecutionWorkflowInput;
  /** Keyword search attributes (ids and enum-like values only, never personal data). */
  searchAttributes: Partial<Record<'CrmWorkspaceId' | 'CrmAutomationId' | 'CrmEntityType' | 'CrmEntityId' | 'CrmTriggerType', string>>;
  memo: Record<string, unknown>;
}

export interface ScheduleRequest {
  scheduleId: string;
  spec: ScheduleSpecData;
  /** The tick workflow's id prefix and its one argument. */
  tickWorkflowId: string;
  tickInput: { workspaceId: string; automationId: string };
  memo: Record<string, unknown>;
  searchAttributes: StartWorkflowRequest['searchAttributes'];
}

export interface WorkflowPort {
  /** Starts the execution workflow; an already started (or finished) one with that id is success. */
  startExecution(req: StartWorkflowRequest): Promise<'started' | 'already_started'>;
  /** Requests cancellation; false when no such running workflow exists. */
  cancel(workflowId: string): Promise<boolean>;
  upsertSchedule(req: ScheduleRequest): Promise<'created' | 'updated'>;
  /** False when there was no schedule. */
  deleteSchedule(scheduleId: string): Promise<boolean>;
  /** Ids of every automation schedule on the server (visibility: a just-created one may lag). */
  listScheduleIds(): Promise<string[]>;
}

/** What every engine entry point receives (API, outbox subscribers, activities). */
export interface EngineDeps {
  orm: import('@mikro-orm/postgresql').MikroORM;
  log: import('../../logger').Logger;
  workflows: WorkflowPort;
  /** Tests only: replaces retryIntervalMinutes (whose minimum is one minute). */
  retryIntervalMs?: number;
}
