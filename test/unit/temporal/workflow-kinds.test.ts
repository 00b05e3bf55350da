/**
 * The workflow registry (each kind in its module's `<kind>.kind.ts`, WORKFLOW_KINDS from the modules) is
 * complete: every kind's workflow function is exported by the worker's bundle entry (generated from every
 * *.workflow.ts: temporal/bundle-options.ts), has a replay fixture, and its ids, search attributes and summary
 * follow the conventions (DESIGN.md "Workflow ids").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineWorkflowKind } from '../../../platform/workflow-kinds';
import { automationExecutionKind } from '../../../modules/automations/automation-execution.kind';
import { automationScheduleTickKind } from '../../../modules/automations/automation-schedule.kind';
import { scheduledSmsKind } from '../../../modules/messaging/sms-scheduled.kind';
import { WORKFLOW_KINDS } from '../../../app/modules';
import { sequenceEnrollmentKind } from '../../../modules/sequences/sequence-enrollment.kind';
import { webhookDeliveryKind } from '../../../modules/webhooks/webhook-delivery.kind';
import { scheduledSmsWorkflowId } from '../../../modules/messaging/sms-workflow-ids';
import { enrollmentWorkflowId, parseEnrollmentWorkflowId } from '../../../modules/sequences/workflow-ids';
import { webhookDeliveryWorkflowId } from '../../../modules/webhooks/ports';
import { CRM_SEARCH_ATTRIBUTES } from '../../../infra/search-attributes';
import { WORKFLOWS_PATH } from '../../../platform/temporal/bundle-options';

// The generated bundle entry (every *.workflow.ts of workflows/ and modules/<m>/).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const workflows = require(WORKFLOWS_PATH) as Record<string, unknown>;

const WS = '6b04aaaaaaaaaaaaaaaaaaaa';
const ID = '6b04bbbbbbbbbbbbbbbbbbbb';
const fixtures = path.join(__dirname, '../../fixtures');

describe('workflow registry', () => {
  it('lists each kind and workflow type once', () => {
    expect(new Set(WORKFLOW_KINDS.map((k) => k.kind)).size).toBe(WORKFLOW_KINDS.length);
    expect(new Set(WORKFLOW_KINDS.map((k) => k.workflowType)).size).toBe(WORKFLOW_KINDS.length);
  });

  it('knows every workflow the bundle exports, and the bundle exports every kind', () => {
    const exported = Object.entries(workflows)
      .filter(([, v]) => typeof v === 'function')
      .map(([name]) => name)
      .sort();
    expect(WORKFLOW_KINDS.map((k) => k.workflowType).sort()).toEqual(exported);
  });

  it.each(WORKFLOW_KINDS.map((k) => [k.kind, k] as const))(
    '%s has replay fixtures of its own workflow type',
    (_kind, k) => {
      expect(k.replayFixtures.length).toBeGreaterThan(0);
      for (const f of k.replayFixtures) {
        const file = path.join(fixtures, f);
        expect(existsSync(file)).toBe(true);
        const history = JSON.parse(readFileSync(file, 'utf8')) as {
          events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
        };
        expect(history.events[0]!.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(k.workflowType);
      }
    },
  );

  it.each(WORKFLOW_KINDS.map((k) => [k.kind, k] as const))(
    '%s builds and parses <kind>:<workspaceId>:<id>',
    (kind, k) => {
      expect(k.workflowId(WS, ID)).toBe(`${kind}:${WS}:${ID}`);
      expect(k.parseId(k.workflowId(WS, ID))).toEqual({ workspaceId: WS, id: ID });
      expect(k.parseId(`${kind}:${WS}:not-an-id`)).toBeNull();
      expect(k.parseId(`other:${WS}:${ID}`)).toBeNull();
    },
  );

  it("is pure: the registry and each *.kind.ts import only it, *.pure helpers and the kinds' input types; no clock, randomness or environment", () => {
    const root = path.join(__dirname, '../../..');
    const kindFiles = (readdirSync(path.join(root, 'modules'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.kind.ts'))
      .map((f) => `modules/${f}`);
    expect(kindFiles.length).toBeGreaterThanOrEqual(8);
    const impure = ['platform/workflow-kinds.ts', ...kindFiles].flatMap((file) => {
      const src = readFileSync(path.join(root, file), 'utf8');
      const imports = [...src.matchAll(/^import (type )?[^']*'([^']+)'/gm)].map((m) => ({
        type: Boolean(m[1]),
        from: m[2]!,
      }));
      return [
        ...imports
          .filter((i) => (i.type ? !/\.messages$/.test(i.from) : !/(\/platform\/workflow-kinds|\.pure)$/.test(i.from)))
          .map((i) => `${file} imports ${i.from}`),
        ...(/Date\.now\(|new Date\(\)|Math\.random|process\.|require\(/.test(src)
          ? [`${file} reads a clock or the environment`]
          : []),
      ];
    });
    expect(impure).toEqual([]);
  });

  it('refuses a kind that is not kebab-case', () => {
    expect(() =>
      defineWorkflowKind({
        kind: 'Bad Kind',
        workflowType: 'x',
        replayFixtures: [],
        searchAttributes: () => ({}),
        memo: () => ({}),
        summary: () => '',
      }),
    ).toThrow(/kebab-case/);
  });

  it('search attributes are registered on the server and hold ids, not names', () => {
    const registered = new Set<string>(CRM_SEARCH_ATTRIBUTES.map((a) => a.name));
    const attrs = automationExecutionKind.searchAttributes({
      workspaceId: WS,
      executionId: ID,
      automationId: ID,
      automationName: 'Welcome lead',
      triggerType: 'lead_created',
      entityType: 'lead',
      entityId: ID,
    });
    expect(attrs).toEqual({
      CrmWorkspaceId: WS,
      CrmAutomationId: ID,
      CrmTriggerType: 'lead_created',
      CrmEntityType: 'lead',
      CrmEntityId: ID,
    });
    for (const name of Object.keys(attrs)) expect(registered.has(name)).toBe(true);
    for (const name of Object.keys(
      automationScheduleTickKind.searchAttributes({ workspaceId: WS, automationId: ID, automationName: 'x' }),
    ))
      expect(registered.has(name)).toBe(true);
  });

  it('SMS, webhook and sequence kinds: the start paths build their ids with the registry; ids-only search attributes', () => {
    expect(scheduledSmsWorkflowId(WS, ID)).toBe(`sms-scheduled:${WS}:${ID}`);
    expect(webhookDeliveryWorkflowId(WS, ID)).toBe(`webhook-delivery:${WS}:${ID}`);
    expect(enrollmentWorkflowId(WS, ID)).toBe(`sequence-enrollment:${WS}:${ID}`);
    expect(parseEnrollmentWorkflowId(enrollmentWorkflowId(WS, ID))).toEqual({ workspaceId: WS, enrollmentId: ID });
    const registered = new Set<string>(CRM_SEARCH_ATTRIBUTES.map((a) => a.name));
    const seq = {
      workspaceId: WS,
      enrollmentId: ID,
      sequenceId: ID,
      sequenceName: 'Onboarding\n drip',
      sequenceVersion: 3,
      entityType: 'lead',
      entityId: ID,
    };
    const all = [
      scheduledSmsKind.searchAttributes({ workspaceId: WS, scheduledId: ID, sendAt: '2026-01-01T09:00:00.000Z' }),
      webhookDeliveryKind.searchAttributes({ workspaceId: WS, deliveryId: ID, retries: 2 }),
      sequenceEnrollmentKind.searchAttributes(seq),
    ];
    expect(all[2]).toEqual({ CrmWorkspaceId: WS, CrmSequenceId: ID, CrmEntityType: 'lead', CrmEntityId: ID });
    for (const attrs of all) for (const name of Object.keys(attrs)) expect(registered.has(name)).toBe(true);
    expect(sequenceEnrollmentKind.summary(seq)).toBe(`Sequence "Onboarding drip" · lead ${ID}`);
    expect(webhookDeliveryKind.summary({ workspaceId: WS, deliveryId: ID, retries: 1 })).toBe(
      `Webhook delivery ${ID} · 1 retry left`,
    );
    expect(scheduledSmsKind.summary({ workspaceId: WS, scheduledId: ID, sendAt: '2026-01-01T09:00:00.000Z' })).toBe(
      `Scheduled SMS ${ID} · at 2026-01-01T09:00:00.000Z`,
    );
  });

  it('summaries are one readable line: automation name, trigger, record', () => {
    const meta = {
      workspaceId: WS,
      executionId: ID,
      automationId: ID,
      automationName: 'Welcome\n lead',
      triggerType: 'lead_created',
      entityType: 'lead',
      entityId: ID,
    };
    expect(automationExecutionKind.summary(meta)).toBe(`Automation "Welcome lead" · lead_created · lead ${ID}`);
    expect(automationExecutionKind.summary({ ...meta, isTest: true, entityType: null, entityId: null })).toBe(
      'Test run · Automation "Welcome lead" · lead_created',
    );
    expect(automationExecutionKind.summary({ ...meta, automationName: 'x'.repeat(300) }).length).toBeLessThan(200);
    expect(automationExecutionKind.details!(meta)).toContain(`\`${ID}\``);
    expect(
      automationScheduleTickKind.summary({
        workspaceId: WS,
        automationId: ID,
        automationName: 'Daily digest',
        description: 'every day at 09:00',
      }),
    ).toBe('Schedule tick · Automation "Daily digest" · every day at 09:00');
  });
});
