/**
 * The calls module's public surface: what code outside modules/calls may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { Call, type CallDirection, type CallStatus } from './call.entity';
export { serializeCall } from './call-view';
export { callStatus, callView, direction, duration, externalId, type CallInput, type CallView } from './calls.schemas';
export { createCall } from './calls.service';
