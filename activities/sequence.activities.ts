/**
 * Activities of the sequence enrollment workflow: `sequenceMirror` (status, current step, next
 * action time, step rows and the enrollment events; run as a local activity) and
 * `sequenceRunStep` (one node's effect). Each step is idempotent on enrollment + node: CRM effects
 * commit together with their step row, sends go out under the key `seq:<enrollmentId>:<nodeId>`.
 */
import { lazy } from './lazy';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { AiProvider } from '../domain/ai/ai-provider';
import { createAiProvider } from '../domain/ai/factory';
import { checkCondition } from '../domain/automations/conditions';
import { contactView, loadEntityContext } from '../domain/automations/engine/context';
import { automationActor, automationActorId } from '../domain/automations/engine/workspace';
import {
  SEQUENCE_NAMESPACES,
  SEQUENCE_TOP_LEVEL_NAMES,
  renderTemplate,
  resolveValue,
} from '../domain/automations/placeholders';
import { zonedParts } from '../domain/automations/time';
import type { AppConfig } from '../domain/config';
import type { Ctx } from '../domain/context';
import { DomainError } from '../domain/errors';
import type { Logger } from '../domain/logger';
import { createMessagingDeps, type MessagingDeps } from '../domain/messaging/factory';
import type { MessageLinks } from '../domain/messaging/outbound.service';
import { forkForWorkspace } from '../domain/orm/tenant';
import { emit } from '../domain/outbox/emit';
import { Person } from '../domain/people/person.entity';
import { recipientsFor, type Selection } from '../domain/sequences/recipients';
import { enrollmentEventPayload } from '../domain/sequences/runs';
import { sendKey, sendSequenceEmail, sendSequenceSms, type SendOutcome } from '../domain/sequences/send';
import { SequenceEnrollment } from '../domain/sequences/sequence.entity';
import {
  findStep,
  beginStep,
  mirrorWithoutStatus,
  upsertStep,
  type StepHistoryRow,
} from '../domain/sequences/step-rows';
import {
  SEQUENCE_FAILURE_TYPES,
  type MirrorInput,
  type StepActivityInput,
  type StepActivityResult,
} from '../domain/sequences/types';
import { unsubscribeUrl } from '../domain/sequences/unsubscribe';
import { renderStoredTemplate } from '../domain/email/template-render';
import { renderStoredSmsTemplate } from '../domain/messaging/sms-templates.service';
import { NO_TRACK } from '../domain/email/tracking';
import { reserveSendSlot } from '../domain/sequences/send-interval';
import { createRecallAction, createTaskAction } from './actions/timeline';
import { setAccessAction, updateRecordAction } from './actions/records';
import type { ActionEnv, ActionHandler } from './actions/types';

export interface SequenceActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  messaging?: MessagingDeps;
  ai?: AiProvider;
  /** Tests only: how long an unfinished e-mail claim counts as in progress (default 5 minutes). */
  staleClaimMs?: number;
}

const KIND: Record<string, string> = { Lead: 'lead', People: 'person', Deal: 'deal', Company: 'company' };
const PERMANENT = new Set([
  'validation',
  'not_found',
  'not_configured',
  'forbidden',
  'conflict',
  'invalid_state',
  'too_large',
  'unauthenticated',
]);
const PLACEHOLDERS = { namespaces: SEQUENCE_NAMESPACES, topLevelNames: SEQUENCE_TOP_LEVEL_NAMES } as const;

class StepError extends DomainError {}
/** The step's send slot (emailIntervalSeconds) is `waitMs` away. */
class DeferredStep extends Error {
  constructor(readonly waitMs: number) {
    super(`send slot in ${waitMs} ms`);
  }
}
const stepFail = (message: string): never => {
  throw new StepError('validation', message);
};

/**
 * Placeholder namespaces of a sequence step (fresh for every step: data may have changed); the
 * workspace's name and the step history come with the step's begin statement (beginStep).
 */
async function buildContext(
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
  const pad = (n: number) => String(n).padStart(2, '0');
  const currentDate = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  const currentTime = `${pad(p.hour)}:${pad(p.minute)}`;
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

export function createSequenceActivities(opts: SequenceActivityOptions) {
  const messaging = opts.messaging ? () => opts.messaging! : lazy(() => createMessagingDeps(opts.config));
  const ai = opts.ai ? () => opts.ai! : lazy(() => createAiProvider(opts.config));
  const log = opts.log;

  const requireMessaging = (): MessagingDeps => messaging() ?? stepFail('messaging is not available');
  const requireAi = (): AiProvider => ai() ?? stepFail('the AI provider is not available');

  async function complete(
    provider: AiProvider,
    prompt: string,
    outputMode: 'text' | 'json_schema',
    schema?: Record<string, unknown>,
    reasoningEffort: 'none' | 'low' | 'medium' | 'high' = 'low',
  ) {
    return provider.complete({ prompt, outputMode, reasoningEffort, ...(schema ? { schema } : {}) });
  }

  /** `{{ai:<id>}}` blocks generated for this recipient (their prompts may use placeholders). */
  async function renderAiBlocks(
    text: string,
    blocks: { id: string; prompt: string }[],
    context: Record<string, unknown>,
    tz: string,
    escape: boolean,
  ): Promise<string> {
    const used = blocks.filter((b) => text.includes(`{{ai:${b.id}}}`));
    if (!used.length) return text;
    const provider = requireAi();
    let out = text;
    for (const b of used) {
      const res = await complete(
        provider,
        renderTemplate(b.prompt, context, { ...PLACEHOLDERS, timezone: tz }).text,
        'text',
      );
      const value = escape ? res.text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`) : res.text;
      out = out.split(`{{ai:${b.id}}}`).join(value);
    }
    return out;
  }

  function sendConditionHolds(d: Record<string, unknown>, context: Record<string, unknown>): boolean {
    const sc = d.sendCondition as { enabled?: boolean; field?: string; operator?: string; value?: unknown } | undefined;
    if (!sc?.enabled || !sc.field) return true;
    return checkCondition(
      { field: sc.field, operator: sc.operator === 'not_equals' ? 'not_equals' : 'equals', value: sc.value },
      context,
      PLACEHOLDERS,
    ).passed;
  }

  async function sendStep(
    em: EntityManager,
    ctx: Ctx,
    e: SequenceEnrollment,
    node: StepActivityInput['node'],
    context: Record<string, unknown>,
  ): Promise<StepActivityResult> {
    const d = node.data;
    const tz = e.snapshot.settings.sendSettings.timezone;
    const channel = node.type === 'send_sms' ? 'sms' : 'email';
    const skipped = async (reason: string): Promise<StepActivityResult> => {
      const output = { skipped: true, reason };
      await upsertStep(em, e, node.id, node.type, { status: 'skipped', output });
      return { status: 'skipped', output };
    };
    if (!sendConditionHolds(d, context)) return skipped('sendCondition not met');
    const custom = channel === 'email' ? d.customRecipient : d.customPhone;
    const recipients = await recipientsFor(
      em,
      context,
      {
        recipientType: String(d.recipientType ?? 'contact'),
        companyRecipientTarget: String(d.companyRecipientTarget ?? 'contact_person'),
        companyContactSelection: (d.companyContactSelection ?? { mode: 'first', fallback: 'skip' }) as Selection,
        field: String((channel === 'email' ? d.recipientField : d.phoneField) ?? 'primary'),
        custom:
          typeof custom === 'string' ? renderTemplate(custom, context, { ...PLACEHOLDERS, timezone: tz }).text : null,
      },
      channel,
    );
    if ('skip' in recipients) return skipped(recipients.skip);
    const settings = e.snapshot.settings;
    const owner = (context.owner ?? null) as Record<string, unknown> | null;
    const deps = { messaging: requireMessaging(), staleClaimMs: opts.staleClaimMs };
    const links = { ...e.links };
    let sent: SendOutcome[];
    if (channel === 'email') {
      const blocks = (d.aiBlocks ?? []) as { id: string; prompt: string }[];
      const templateId = typeof d.templateId === 'string' && d.templateId.trim() ? d.templateId.trim() : null;
      const stepSubject = d.subject
        ? renderTemplate(String(d.subject), context, { ...PLACEHOLDERS, timezone: tz }).text
        : '';
      // A template is rendered against the enrollment's records; a subject on the step overrides the template's.
      const content = templateId
        ? await renderStoredTemplate(
            ctx,
            templateId,
            context,
            { subject: stepSubject || undefined },
            'send_email.templateId',
          )
        : {
            subject: stepSubject,
            html: renderTemplate(String(d.body ?? ''), context, { ...PLACEHOLDERS, timezone: tz, escape: 'html' }).text,
            text: undefined,
          };
      const subject = await renderAiBlocks(content.subject, blocks, context, tz, false);
      let html = content.html ? await renderAiBlocks(content.html, blocks, context, tz, true) : '';
      if (d.unsubscribeLinkEnabled === true) {
        const link = `<p style="font-size:12px;color:#666"><a ${NO_TRACK} href="${unsubscribeUrl(opts.config, e)}">${typeof d.unsubscribeLinkPreset === 'string' && d.unsubscribeLinkPreset ? d.unsubscribeLinkPreset : 'Unsubscribe'}</a></p>`;
        html = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${link}</body>`) : html + link;
      }
      const senderType = (d.senderType ?? settings.defaultSenderType ?? 'fixed') as string;
      const ownerEmail = typeof owner?.email === 'string' ? owner.email : undefined;
      // The mailbox: the step's senderAccountId, else the sequence's default sender id when it names a connected
      // mailbox.
      const accountId =
        typeof d.senderAccountId === 'string' && d.senderAccountId.trim()
          ? d.senderAccountId.trim()
          : settings.defaultSenderId && /^[0-9a-f]{24}$/.test(settings.defaultSenderId)
            ? settings.defaultSenderId
            : undefined;
      const from =
        !accountId && senderType === 'owner' && ownerEmail && messaging()?.transport.defaultFrom
          ? `${String(owner?.fullName ?? '').replace(/[<>"]/g, '') || 'Sales'} <${addressOf(messaging()!.transport.defaultFrom!)}>`
          : undefined;
      // emailIntervalSeconds: one slot per send and mailbox, reserved once per step (kept on the step row).
      const interval = settings.sendSettings.emailIntervalSeconds ?? 0;
      if (interval > 0) {
        const prior = await findStep(em, e.workspaceId, e._id, node.id);
        const kept = typeof prior?.output?.slotAt === 'string' ? new Date(prior.output.slotAt) : null;
        const slot = kept ?? (await reserveSendSlot(em, e.workspaceId, accountId ?? 'fallback', interval));
        if (!kept)
          await upsertStep(em, e, node.id, node.type, {
            status: 'waiting',
            output: { slotAt: slot.toISOString(), reason: 'emailIntervalSeconds' },
          });
        const wait = slot.getTime() - Date.now();
        if (wait > 500) throw new DeferredStep(wait);
      }
      // Tracking as the sequence's settings say, where tracking links can be signed (CRM_SECRETS_KEY).
      const track = (deps.messaging.tracking && settings.trackingSettings) || { trackOpens: false, trackClicks: false };
      sent = [
        await sendSequenceEmail(ctx, deps, {
          to: recipients.to,
          subject: subject.replace(/[\r\n]+/g, ' '),
          html: html || undefined,
          text: 'text' in content ? content.text : undefined,
          from,
          accountId,
          replyTo: senderType === 'owner' ? ownerEmail : undefined,
          trackOpens: track.trackOpens,
          trackClicks: track.trackClicks,
          links,
          linksRead: linksIn(links, context),
          key: sendKey(e._id, node.id),
        }),
      ];
    } else {
      // An SMS template (smsMode template or a templateId) is read and rendered now, like an e-mail template.
      const templateId = typeof d.templateId === 'string' && d.templateId.trim() ? d.templateId.trim() : null;
      const text = templateId
        ? (
            await renderStoredSmsTemplate(
              ctx,
              templateId,
              context,
              { ...PLACEHOLDERS, timezone: tz },
              'send_sms.templateId',
            )
          ).text
        : renderTemplate(String(d.message ?? ''), context, { ...PLACEHOLDERS, timezone: tz }).text;
      const message = await renderAiBlocks(
        text,
        (d.aiBlocks ?? []) as { id: string; prompt: string }[],
        context,
        tz,
        false,
      );
      const senderType = String(d.senderType ?? 'fixed');
      const from =
        senderType === 'alphanumeric'
          ? String(d.senderId)
          : senderType === 'owner' && typeof owner?.phone === 'string'
            ? owner.phone
            : (typeof d.fromNumber === 'string' && d.fromNumber) || settings.defaultSmsNumber || undefined;
      sent = [];
      for (const [i, to] of recipients.to.entries())
        sent.push(await sendSequenceSms(ctx, deps, { to, message, from, links, key: sendKey(e._id, node.id, i) }));
    }
    const output = { to: recipients.to, via: recipients.via, messages: sent };
    await upsertStep(em, e, node.id, node.type, {
      status: 'completed',
      output,
      messageId: sent[0]?.outboundMessageId ?? null,
      sentAt: new Date(),
    });
    return { status: 'completed', output };
  }

  const CRM_HANDLERS: Record<
    string,
    {
      handler: ActionHandler<never>;
      config: (d: Record<string, unknown>, e: SequenceEnrollment) => Record<string, unknown>;
    }
  > = {
    create_task: {
      handler: createTaskAction as ActionHandler<never>,
      config: (d) => ({
        title: d.taskTitle,
        description: d.taskDescription ?? undefined,
        activityType: d.activityType,
        priority: d.priority,
        dateScheduleType: 'relative',
        dueInDays: d.dueInDays,
        durationMinutes: 30,
        assignTo: d.assignTo,
        conflictPolicy: 'create_anyway',
      }),
    },
    create_recall: {
      handler: createRecallAction as ActionHandler<never>,
      config: (d) => ({
        title: d.title,
        message: d.message ?? undefined,
        phoneField: d.phoneField,
        delayDays: d.delayDays,
        assignTo: d.assignTo,
      }),
    },
    update_field: {
      handler: updateRecordAction as ActionHandler<never>,
      // `lead.status` on a lead enrollment is the lead's own status.
      config: (d, e) => ({
        recordType: 'trigger',
        fieldUpdates: [
          { fieldKey: String(d.fieldPath).replace(new RegExp(`^${KIND[e.entityType]}\\.`), ''), value: d.value },
        ],
      }),
    },
    set_access: {
      handler: setAccessAction as ActionHandler<never>,
      config: (d) => ({ recordType: 'trigger', accessState: d.accessState }),
    },
  };

  async function crmStep(
    em: EntityManager,
    ctx: Ctx,
    e: SequenceEnrollment,
    node: StepActivityInput['node'],
    context: Record<string, unknown>,
  ): Promise<StepActivityResult> {
    const spec = CRM_HANDLERS[node.type]!;
    const raw = spec.config(node.data, e);
    const tz = e.snapshot.settings.sendSettings.timezone;
    const config = Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [
        k,
        typeof v === 'string' ? resolveValue(v, context, { ...PLACEHOLDERS, timezone: tz }) : v,
      ]),
    );
    return em.transactional(async (tem) => {
      // A concurrent attempt that finished this step first holds its row until it commits.
      const prior = await findStep(tem, e.workspaceId, e._id, node.id, { forUpdate: true });
      if (prior?.status === 'completed') return { status: 'completed' as const, output: prior.output ?? {} };
      await upsertStep(tem, e, node.id, node.type, { status: 'running' });
      const tctx: Ctx = { em: tem, actor: ctx.actor };
      const env = {
        em: tem,
        ctx: tctx,
        now: new Date(),
        idempotencyKey: sendKey(e._id, node.id),
        input: {
          workspaceId: e.workspaceId,
          executionId: e._id,
          automationId: e.sequenceId,
          nodeId: node.id,
          data: node.data,
          context,
          isTest: false,
          actorUserId: ctx.actor.userId,
          timezone: tz,
          chain: [],
          failureBehavior: 'stop',
        },
        deps: { orm: opts.orm, config: opts.config, log, messaging, ai } as never,
      } as ActionEnv;
      const r = await spec.handler.run(env, config as never);
      const output = (r.output ?? {}) as Record<string, unknown>;
      await upsertStep(tem, e, node.id, node.type, {
        status: r.status === 'skipped' ? 'skipped' : 'completed',
        output,
      });
      return { status: r.status === 'skipped' ? ('skipped' as const) : ('completed' as const), output };
    });
  }

  async function aiStep(
    em: EntityManager,
    e: SequenceEnrollment,
    node: StepActivityInput['node'],
    context: Record<string, unknown>,
  ): Promise<StepActivityResult> {
    const d = node.data;
    const tz = e.snapshot.settings.sendSettings.timezone;
    const provider = requireAi();
    const prompt = renderTemplate(String(d.prompt), context, { ...PLACEHOLDERS, timezone: tz }).text;
    if (node.type === 'ai_condition') {
      const schema = {
        type: 'object',
        properties: { decision: { type: 'boolean' }, confidence: { type: 'number' }, reason: { type: 'string' } },
        required: ['decision', 'confidence'],
      };
      const res = await complete(
        provider,
        `${prompt}\n\nAnswer with decision (true = yes, false = no), your confidence between 0 and 1, and a short reason.`,
        'json_schema',
        schema,
      );
      const decision = res.json?.decision === true;
      const confidence = typeof res.json?.confidence === 'number' ? res.json.confidence : 0;
      const threshold = typeof d.confidenceThreshold === 'number' ? d.confidenceThreshold : 0.7;
      const handle = decision && confidence >= threshold ? 'true' : 'false';
      const output = { decision, confidence, threshold, reason: res.json?.reason ?? null, model: res.model };
      await upsertStep(em, e, node.id, node.type, { status: 'completed', output, handle });
      return { status: 'completed', handle, output };
    }
    const mode = d.outputMode === 'text' ? 'text' : 'json_schema';
    const schema =
      mode === 'json_schema'
        ? ((typeof d.schema === 'string' ? JSON.parse(d.schema) : d.schema) as Record<string, unknown>)
        : undefined;
    const res = await complete(provider, prompt, mode, schema, (d.reasoningEffort ?? 'low') as 'low');
    const output = { text: res.text, json: res.json ?? null, model: res.model };
    await upsertStep(em, e, node.id, node.type, { status: 'completed', output });
    return { status: 'completed', output };
  }

  return {
    /** Bookkeeping (local activity): never moves a finished enrollment back; events in the same transaction. */
    async sequenceMirror(input: MirrorInput): Promise<boolean> {
      const em = forkForWorkspace(opts.orm.em, input.workspaceId);
      // Most mirrors (a step reached, a wait scheduled or done) change no status: one statement.
      if (input.status === undefined) return mirrorWithoutStatus(em, input);
      return em.transactional(async (tem) => {
        const e = await tem.findOne(
          SequenceEnrollment,
          { _id: input.enrollmentId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!e) return false;
        const running = e.status === 'active' || e.status === 'paused';
        if (running) {
          if (input.currentNodeId !== undefined) e.currentNodeId = input.currentNodeId;
          if (input.nextActionAt !== undefined)
            e.nextActionAt = input.nextActionAt ? new Date(input.nextActionAt) : null;
          if (input.pausedUntil !== undefined) e.pausedUntil = input.pausedUntil ? new Date(input.pausedUntil) : null;
          if (input.status && input.status !== e.status) {
            e.status = input.status;
            e.lastCommandId = input.commandId ?? null;
            if (input.status === 'completed' || input.status === 'exited') {
              e.finishedAt = new Date();
              e.exitReason = input.status === 'exited' ? (input.exitReason ?? null) : null;
              e.error = input.error ?? null;
              e.nextActionAt = null;
              e.pausedUntil = null;
            }
            if (input.event) {
              const actor = automationActor(e.workspaceId, await automationActorId(tem, e.enrolledBy));
              emit(
                { em: tem, actor },
                {
                  type: input.event,
                  entityType: 'sequence_enrollment',
                  entityId: e._id,
                  payload: enrollmentEventPayload(e),
                },
              );
            }
          }
          e.updatedAt = new Date();
        }
        if (input.step)
          await upsertStep(tem, e, input.step.nodeId, input.step.nodeType, {
            status: input.step.status,
            output: input.step.output ?? null,
            error: input.step.error ?? null,
          });
        await tem.flush();
        return running;
      });
    },

    async sequenceRunStep(input: StepActivityInput): Promise<StepActivityResult> {
      const result = await runStep(input);
      const then = input.then;
      if (!then || result.exit || result.status === 'failed') return result;
      // The wait that follows starts now: recorded here instead of by a bookkeeping round trip of the run.
      // An enrollment that ended meanwhile gets no wait (the run then leaves without one).
      const until = new Date(Date.now() + then.waitMs).toISOString();
      const running = await mirrorWithoutStatus(
        forkForWorkspace(opts.orm.em, input.workspaceId),
        {
          workspaceId: input.workspaceId,
          enrollmentId: input.enrollmentId,
          currentNodeId: then.nodeId,
          nextActionAt: until,
          step: { nodeId: then.nodeId, nodeType: 'wait', status: 'waiting', output: { until, ms: then.waitMs } },
        },
        { stepOnlyWhileRunning: true },
      );
      return running
        ? { ...result, waitUntil: until, waitLeftMs: Math.max(0, Date.parse(until) - Date.now()) }
        : result;
    },
  };

  async function runStep(input: StepActivityInput): Promise<StepActivityResult> {
    const em = forkForWorkspace(opts.orm.em, input.workspaceId);
    const begun = await beginStep(em, input.workspaceId, input.enrollmentId, input.node.id);
    if (!begun) throw ApplicationFailure.nonRetryable('enrollment not found', SEQUENCE_FAILURE_TYPES.permanent);
    const { enrollment: e, step: done } = begun;
    // The workflow carries a node's id and type only (runs.ts workflowNodeOf); its data is the enrollment's snapshot.
    // Runs started with full node data (before that) keep working: their own data is the same snapshot.
    const node = e.snapshot.nodes.find((n) => n.id === input.node.id && n.type === input.node.type) ?? input.node;
    // Ended meanwhile (a restart or unenroll): the run leaves without acting.
    if (e.status !== 'active' && e.status !== 'paused')
      return { status: 'skipped', exit: (e.exitReason as never) ?? 'manual' };
    if (done && (done.status === 'completed' || done.status === 'skipped'))
      return {
        status: done.status,
        handle: (done.handle as 'true' | 'false' | null) ?? null,
        output: done.output ?? {},
      };
    try {
      const actorId = await automationActorId(em, e.enrolledBy);
      const ctx: Ctx = { em, actor: automationActor(e.workspaceId, actorId) };
      const context = await buildContext(em, e, begun);
      switch (node.type) {
        case 'send_email':
        case 'send_sms':
          return await sendStep(em, ctx, e, node, context);
        case 'create_task':
        case 'create_recall':
        case 'update_field':
        case 'set_access':
          return await crmStep(em, ctx, e, node, context);
        case 'ai_condition':
        case 'ai_analyzer':
          return await aiStep(em, e, node, context);
        case 'condition': {
          const check = checkCondition(
            { field: String(node.data.field), operator: node.data.operator as never, value: node.data.value },
            context,
            { ...PLACEHOLDERS, now: Date.now(), timezone: e.snapshot.settings.sendSettings.timezone },
          );
          const handle = check.passed ? 'true' : 'false';
          const output = { actual: check.actual as never, expected: check.expected as never, passed: check.passed };
          await upsertStep(em, e, node.id, node.type, { status: 'completed', output, handle });
          return { status: 'completed', handle, output };
        }
        default:
          return stepFail(`unknown node type ${node.type}`);
      }
    } catch (err) {
      // Not a failure: the mailbox's next send slot is later; Temporal retries the step then.
      if (err instanceof DeferredStep)
        throw ApplicationFailure.create({
          message: `deferred ${err.waitMs} ms by emailIntervalSeconds`,
          type: 'SequenceStepDeferred',
          nextRetryDelay: err.waitMs,
        });
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
      const permanent = err instanceof DomainError && PERMANENT.has(err.code);
      log.warn(
        { enrollmentId: e._id, nodeId: node.id, code: err instanceof DomainError ? err.code : undefined, permanent },
        'sequence step failed',
      );
      await upsertStep(forkForWorkspace(opts.orm.em, input.workspaceId), e, node.id, node.type, {
        status: 'failed',
        error: message,
      }).catch(() => undefined);
      if (permanent) throw ApplicationFailure.nonRetryable(message, SEQUENCE_FAILURE_TYPES.permanent);
      throw err;
    }
  }
}

/** Whether every record the links name is one the step's context has just loaded (then the send need not check it). */
function linksIn(links: MessageLinks, context: Record<string, unknown>): boolean {
  const loaded = (ns: string, id: string | undefined): boolean =>
    id == null || (context[ns] as { _id?: unknown } | undefined)?._id === id;
  return (
    loaded('lead', links.leadId) &&
    loaded('deal', links.dealId) &&
    loaded('person', links.personId) &&
    loaded('company', links.companyId)
  );
}

const addressOf = (mailbox: string): string => /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
