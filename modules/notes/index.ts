/**
 * The notes module's public surface: what code outside modules/notes may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { Note } from './note.entity';
export { createNote } from './notes.service';
