import type { EventName } from './catalog';

/**
 * A list of declared event names (a misspelt one fails tsc), typed as plain strings so that
 * subscribers can ask `list.includes(event.type)` of a stored row. Pure: safe anywhere.
 */
export const eventNames = (...names: EventName[]): readonly string[] => names;
