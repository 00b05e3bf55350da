// Workflow entry point bundled by the Temporal worker (bin/worker.ts `workflowsPath`).
// Export each workflow function from here.
export * from './automation-execution.workflow';
export * from './automation-schedule.workflow';
export * from './webhook-delivery.workflow';

export * from './sms-scheduled.workflow';

export * from './sequence-enrollment.workflow';

export * from '../modules/bookings/booking-approval.workflow';
export * from './email-bulk.workflow';
export * from '../modules/contracts/contract-envelope.workflow';
