/**
 * The tasks module's public surface: what code outside modules/tasks may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { Task, TASK_PRIORITIES, TASK_STATUSES, type TaskPriority } from './task.entity';
export { createTask, deleteTask, serializeTask, TASK_FIELDS, updateTask } from './tasks.service';
export { createTaskBody, type TaskInput } from './tasks.schemas';
