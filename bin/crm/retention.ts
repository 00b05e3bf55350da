/** `crm workspace retention`: how long a workspace's finished runs are kept (modules/workspaces/run-retention.ts). */
import { validation } from '../../platform/errors';
import {
  parseId,
  DEFAULT_RUN_RETENTION_DAYS,
  MAX_RUN_RETENTION_DAYS,
  MIN_RUN_RETENTION_DAYS,
  setRunRetention,
} from '../../modules/workspaces';
import type { CommandSpec } from './command-spec';

export const retentionCommand: CommandSpec = {
  name: 'workspace retention',
  summary: `Keep the workspace's finished automation executions, step logs and sequence enrollments this many days (default ${DEFAULT_RUN_RETENTION_DAYS}); the worker's housekeeping deletes older ones`,
  flags: [
    { name: 'workspace', value: '<id>', required: true, description: 'workspace id (24 hex characters)' },
    {
      name: 'days',
      value: '<n>',
      required: true,
      description: `${MIN_RUN_RETENTION_DAYS}-${MAX_RUN_RETENTION_DAYS}`,
    },
  ],
  prepare(values) {
    const workspaceId = parseId(values.workspace as string, 'workspace');
    const raw = (values.days ?? '').trim();
    const days = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(days) || days < MIN_RUN_RETENTION_DAYS || days > MAX_RUN_RETENTION_DAYS)
      throw validation(`--days: must be an integer from ${MIN_RUN_RETENTION_DAYS} to ${MAX_RUN_RETENTION_DAYS}`);
    return async (em) => {
      const result = await setRunRetention(em, workspaceId, days);
      return {
        result: { ...result },
        human: `Workspace ${result.workspaceId} keeps finished runs ${result.runRetentionDays} days.`,
      };
    };
  },
};
