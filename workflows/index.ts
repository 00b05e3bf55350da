// Workflow entry point bundled by the Temporal worker (bin/worker.ts `workflowsPath`).
// Export each workflow function from here.
export * from './automation-execution.workflow';
export * from './automation-schedule.workflow';
export * from './webhook-delivery.workflow';

export * from './sms-scheduled.workflow';

export * from './sequence-enrollment.workflow';
