/**
 * The ai module's public surface: what code outside modules/ai may import (dependency-cruiser
 * `module-public-surface`): the provider port the automation ai node and the sequence ai_analyzer complete prompts
 * through, and the factory that builds it from the configuration. The adapter (adapters/ai/) imports the port's
 * declaration file, `ai-provider.port.ts`, directly (`adapters-below-the-engines`).
 */
export type { AiProvider } from './ai-provider.port';
export { createAiProvider } from './factory';
