// What the steps of a sequence enrollment share: the placeholder context of its records, the step errors, the
// dependencies a step may need (each built on first use) and the send condition.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AiProvider } from '../ai';
import { checkCondition } from '../automations/conditions.pure';
import { loadEntityContext } from '../automations/index.steps';
import { contactView } from '../../platform/shared/record-view';
import { SEQUENCE_NAMESPACES, SEQUENCE_TOP_LEVEL_NAMES } from '../../platform/shared/placeholders.pure';
import { wallDate, wallTime, zonedParts } from '../../platform/shared/zoned-time.pure';
import type { AppConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import type { MessagingDeps } from '../email';
import type { MessageLinks } from '../messaging';
import { Person } from '../people';
import type { SequenceEnrollment } from './sequence.entity';
import type { StepHistoryRow } from './step-rows';
import { canonicalTimeZone } from '../../platform/shared/time-zone';

export const KIND: Record<string, string> = { Lead: 'lead', People: 'person', Deal: 'deal', Company: 'company' };
export const PLACEHOLDERS = { namespaces: SEQUENCE_NAMESPACES, topLevelNames: SEQUENCE_TOP_LEVEL_NAMES } as const;

export class StepError extends DomainError {}
/** The mailbox's send slot (emailIntervalSeconds) or cap window is `waitMs` away (runs without deferrals). */
export class DeferredStep extends Error {
  constructor(readonly waitMs: number) {
    super(`send slot in ${waitMs} ms`);
  }
}
export const stepFail = (message: string): never => {
  throw new StepError('validation', message);
};

/** What a step may need beyond the enrollment: providers are built on first use (null when they cannot be). */
export interface StepDeps {
  config: AppConfig;
  messaging: () => MessagingDeps | null;
  ai: () => AiProvider | null;
  /** Tests only: how long an unfinished e-mail claim counts as in progress (default 5 minutes). */
  staleClaimMs?: number;
}

export const requireMessaging = (deps: StepDeps): MessagingDeps =>
  deps.messaging() ?? stepFail('messaging is not available');
export const requireAi = (deps: StepDeps): AiProvider => deps.ai() ?? stepFail('the AI provider is not available');

/**
 * Placeholder namespaces of a sequence step (fresh for every step: data may have changed); the
 * workspace's name and the step history come with the step's begin statement (beginStep).
 */
export async function buildContext(
  em: EntityManager,
  e: SequenceEnrollment,
  begun: { workspaceName: string; history: StepHistoryRow[] },
): Promise<Record<string, unknown>> {
  const kind = KIND[e.entityType] ?? e.entityType.toLowerCase();
  const c = await loadEntityContext(em, kind, e.entityId);
  if (!c.contact && e.personId) {
    const person = await em.findOne(Person, { _id: e.personId });
    if (person) c.contact = c.person = contactView(person);
  }
  const tz = e.snapshot.settings.sendSettings.timezone;
  const now = Date.now();
  const p = zonedParts(now, tz);
  const currentDate = wallDate(p);
  const currentTime = wallTime(p);
  const record = c[kind] as Record<string, unknown> | undefined;
  const steps = begun.history;
  const last = (type: string) => [...steps].reverse().find((s) => s.nodeType === type && s.sentAt);
  const history = (s: StepHistoryRow | undefined) => ({
    sent: !!s,
    sentAt: s?.sentAt?.toISOString() ?? null,
    opened: !!s?.openedAt,
    clicked: !!s?.clickedAt,
    replied: !!s?.repliedAt,
  });
  const aiOutput: Record<string, unknown> = {};
  for (const s of steps)
    if (s.nodeType === 'ai_analyzer' && s.status === 'completed' && s.output)
      Object.assign(aiOutput, (s.output.json as object | null) ?? { text: s.output.text });
  return {
    ...c,
    workspace: { name: begun.workspaceName },
    system: {
      currentDate,
      currentTime,
      enrolledAt: e.enrolledAt.toISOString(),
      entityType: kind,
      entityId: e.entityId,
      workspaceId: e.workspaceId,
      sequenceId: e.sequenceId,
      enrollmentId: e._id,
    },
    currentDate,
    currentTime,
    customFields: (record?.customFields as Record<string, unknown> | undefined) ?? {},
    aiOutput,
    stepHistory: { lastEmail: history(last('send_email')), lastSms: history(last('send_sms')) },
  };
}

export function sendConditionHolds(d: Record<string, unknown>, context: Record<string, unknown>): boolean {
  const sc = d.sendCondition as { enabled?: boolean; field?: string; operator?: string; value?: unknown } | undefined;
  if (!sc?.enabled || !sc.field) return true;
  return checkCondition(
    { field: sc.field, operator: sc.operator === 'not_equals' ? 'not_equals' : 'equals', value: sc.value },
    context,
    PLACEHOLDERS,
  ).passed;
}

/** Whether every record the links name is one the step's context has just loaded (then the send need not check it). */
export function linksIn(links: MessageLinks, context: Record<string, unknown>): boolean {
  const loaded = (ns: string, id: string | undefined): boolean =>
    id == null || (context[ns] as { _id?: unknown } | undefined)?._id === id;
  return (
    loaded('lead', links.leadId) &&
    loaded('deal', links.dealId) &&
    loaded('person', links.personId) &&
    loaded('company', links.companyId)
  );
}

/**
 * The recipient's own IANA time zone, when the records have one: a lead enrollment's lead first, then the contact
 * person. Null: the sequence's sendSettings.timezone applies.
 */
export function recipientZone(e: SequenceEnrollment, context: Record<string, unknown>): string | null {
  const zoneOf = (ns: string): string | null => {
    const v = (context[ns] as { timeZone?: unknown } | undefined)?.timeZone;
    return typeof v === 'string' && v ? canonicalTimeZone(v) : null;
  };
  return (e.entityType === 'Lead' ? zoneOf('lead') : null) ?? zoneOf('contact') ?? zoneOf('person');
}

export const addressOf = (mailbox: string): string => /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
