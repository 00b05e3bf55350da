import { DomainError } from '../errors';

/**
 * A state machine as a table, declared once per stateful field in `<module>.rules.ts` and shared
 * by the service (409 `invalid_state` naming the current state), the workflow and the docs.
 * Pure: no I/O, safe to import from workflow code.
 */
export interface TransitionSpec<S extends string> {
  /** Record kind and field, e.g. `deal` + `status`: the subject of every message. */
  resource: string;
  field: string;
  states: readonly S[];
  /** from → the states it may move to. Staying in the same state is always allowed and not listed. */
  transitions: { readonly [K in S]: readonly S[] };
  /**
   * Leaving a state only when a condition holds (shown in the docs; the caller says whether it
   * holds): e.g. a won deal takes another status only while it sits in an open stage.
   */
  requires?: { readonly [K in S]?: string };
  /** Rules the table cannot express, one line each (shown in the docs). */
  notes?: readonly string[];
}

export interface TransitionRow<S extends string> {
  from: S;
  to: S[];
  requires?: string;
}

export interface Transitions<S extends string> extends TransitionSpec<S> {
  /** True when `from` may become `to` (the same state always may). */
  can(from: S, to: S, opts?: { requirementMet?: boolean }): boolean;
  allowedFrom(from: S, opts?: { requirementMet?: boolean }): S[];
  /** States with no way out. */
  terminal(): S[];
  /**
   * Throws 409 `invalid_state` unless `from` may become `to`. The message names the current state
   * (`message` replaces the default wording); details carry `{ current, requested, allowed }`.
   */
  assert(from: S, to: S, opts?: { requirementMet?: boolean; message?: string }): void;
  /** The table for docs: one row per state. */
  rows(): TransitionRow<S>[];
}

export function defineTransitions<const S extends string>(spec: TransitionSpec<S>): Transitions<S> {
  for (const [from, targets] of Object.entries(spec.transitions) as [S, readonly S[]][]) {
    if (!spec.states.includes(from))
      throw new Error(`${spec.resource}.${spec.field}: unknown state ${from} in the transition table`);
    for (const to of targets) {
      if (!spec.states.includes(to))
        throw new Error(`${spec.resource}.${spec.field}: ${from} → ${to}: unknown state ${to}`);
    }
  }
  const allowedFrom = (from: S, opts: { requirementMet?: boolean } = {}): S[] =>
    spec.requires?.[from] !== undefined && opts.requirementMet === false ? [] : [...(spec.transitions[from] ?? [])];
  const can = (from: S, to: S, opts?: { requirementMet?: boolean }): boolean =>
    from === to || allowedFrom(from, opts).includes(to);
  return {
    ...spec,
    can,
    allowedFrom,
    terminal: () => spec.states.filter((s) => (spec.transitions[s] ?? []).length === 0),
    assert(from, to, opts = {}) {
      if (can(from, to, opts)) return;
      const allowed = allowedFrom(from, opts);
      const requirement = spec.requires?.[from];
      const message =
        opts.message ??
        `${spec.field}: the ${spec.resource} is ${from}; it cannot become ${to}` +
          (allowed.length
            ? ` (allowed: ${allowed.join(', ')})`
            : requirement
              ? ` unless ${requirement}`
              : ` (${from} is final)`);
      throw new DomainError('invalid_state', message, { current: from, requested: to, allowed });
    },
    rows: () =>
      spec.states.map((from) => ({
        from,
        to: [...(spec.transitions[from] ?? [])],
        ...(spec.requires?.[from] ? { requires: spec.requires[from] } : {}),
      })),
  };
}

/** What the docs show for one table (plain data, JSON-serialisable). */
export interface TransitionsDoc {
  resource: string;
  field: string;
  states: string[];
  transitions: TransitionRow<string>[];
  notes: string[];
}

export function transitionsDoc(t: Transitions<string>): TransitionsDoc {
  return {
    resource: t.resource,
    field: t.field,
    states: [...t.states],
    transitions: t.rows(),
    notes: [...(t.notes ?? [])],
  };
}
