/**
 * The ai module's public surface: what code outside modules/ai may import (dependency-cruiser
 * `module-public-surface`): the provider port the automation ai node and the sequence ai_analyzer complete prompts
 * through. The adapter and the factory that picks it from the configuration (adapters/ai/) import the port's
 * declaration file, `ai-provider.port.ts`, directly (`adapters-below-the-engines`); the composition roots build the
 * provider (bin/worker.ts, or createActivities for callers that give none).
 */
export type { AiProvider } from '../../platform/ports/ai-provider.port';
