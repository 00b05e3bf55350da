// Workflow entry point bundled by the Temporal worker (bin/worker.ts `workflowsPath`).
// Export each workflow function from here (e.g. `export * from './automation-execution.workflow'`).
// While nothing is exported the worker process runs without a Temporal worker: Worker.create
// refuses a bundle without workflows.
export {};
