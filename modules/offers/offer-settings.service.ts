import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { newId } from '../../platform/ids';
import { emit } from '../../platform/outbox/emit';
import { DEFAULT_CURRENCY, DEFAULT_VAT_RATE } from '../../platform/shared/money';
import { inTransaction } from '../../platform/shared/tx';
import { OfferSettings } from './offer.entity';
import type { OfferSettingsView } from './offers.views';

/** The settings document a workspace starts with (created on first read). */
export function defaultOfferSettings(): OfferSettingsView {
  return {
    companyInfo: {
      name: null,
      address: null,
      zip: null,
      city: null,
      country: null,
      cvr: null,
      email: null,
      phone: null,
      website: null,
    },
    bankInfo: { bankName: null, registrationNumber: null, accountNumber: null, iban: null, swift: null },
    defaults: {
      vatRate: DEFAULT_VAT_RATE,
      currency: DEFAULT_CURRENCY,
      defaultValidityDays: 30,
      paymentTerms: '8 days net',
      defaultTemplateId: null,
      defaultOfferTypeId: null,
    },
    branding: { primaryColor: '#1f2937', accentColor: '#2563eb', fontFamily: 'system-ui, sans-serif', logoUrl: null },
    emailSettings: {
      subject: 'Offer {{offer.offerNumber}}: {{offer.title}}',
      body: '<p>Hello {{contact.firstName | default:"there"}},</p><p>Please find our offer <strong>{{offer.title}}</strong> here: <a href="{{offer.link}}">{{offer.link}}</a></p>',
      senderAccountId: null,
    },
    smsSettings: { message: 'Your offer {{offer.offerNumber}} is ready: {{offer.link}}' },
    acceptanceSettings: {
      requireName: true,
      requireEmail: false,
      allowDecline: true,
      requireDeclineReason: false,
      acceptButtonText: 'Accept offer',
      declineButtonText: 'Decline',
      termsText: null,
    },
    trackingSettings: { trackViews: true },
    sequenceSettings: { enabled: false, sequenceId: null },
    orderConfirmationSettings: { enabled: false, subject: null, body: null },
    numbering: { prefix: 'OFF-', nextNumber: 1 },
    contractSettings: {},
    defaultTerms: null,
    defaultPaymentTerms: null,
    lineItemUnits: [
      { value: 'pcs', label: 'pcs', sortOrder: 1 },
      { value: 'hours', label: 'hours', sortOrder: 2 },
      { value: 'days', label: 'days', sortOrder: 3 },
      { value: 'month', label: 'month', sortOrder: 4 },
    ],
    billingFrequencies: [
      { value: 'once', label: 'One-off', sortOrder: 1 },
      { value: 'monthly', label: 'Monthly', sortOrder: 2 },
      { value: 'yearly', label: 'Yearly', sortOrder: 3 },
    ],
    setupCompleted: false,
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Nested objects merge key by key; arrays, scalars and null replace. */
export function mergeSettings(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(base[key]) ? mergeSettings(base[key], value) : value;
  }
  return out;
}

/** The workspace's settings row, created with the defaults when missing (concurrent first reads agree). */
async function ensureRow(ctx: Ctx): Promise<void> {
  const now = new Date();
  await ctx.em.execute(
    `insert into offer_settings (id, workspace_id, created_at, updated_at, settings) values (?, ?, ?, ?, ?::jsonb) on conflict (workspace_id) do nothing`,
    [newId(now), ctx.actor.workspaceId, now, now, JSON.stringify(defaultOfferSettings())],
  );
}

export async function getOfferSettings(ctx: Ctx): Promise<Record<string, unknown>> {
  let row = await ctx.em.findOne(OfferSettings, { workspaceId: ctx.actor.workspaceId });
  if (!row) {
    await ensureRow(ctx);
    row = await ctx.em.findOneOrFail(OfferSettings, { workspaceId: ctx.actor.workspaceId });
  }
  // Keys added to the defaults later appear for old rows too.
  return mergeSettings(defaultOfferSettings(), row.settings);
}

/** Read-merge-write under the row lock, so a send taking a number meanwhile is never overwritten. */
export async function updateOfferSettings(ctx: Ctx, patch: Record<string, unknown>): Promise<Record<string, unknown>> {
  await ensureRow(ctx);
  return inTransaction(ctx, async () => {
    const row = await ctx.em.findOneOrFail(
      OfferSettings,
      { workspaceId: ctx.actor.workspaceId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    const merged = mergeSettings(mergeSettings(defaultOfferSettings(), row.settings), patch);
    row.settings = merged;
    row.updatedAt = new Date();
    emit(ctx, {
      type: 'offer_settings_updated',
      entityType: 'offer_settings',
      entityId: row._id,
      payload: { changedKeys: Object.keys(patch) },
    });
    return merged;
  });
}

/**
 * Hands out the next offer number: one UPDATE … RETURNING, so the row lock serialises concurrent
 * sends and no two share a number. Inside the send's transaction: a rolled-back send gives its number back.
 */
export async function takeOfferNumber(ctx: Ctx): Promise<string> {
  await ensureRow(ctx);
  const rows = await ctx.em.execute<{ prefix: string | null; number: string }[]>(
    `update offer_settings
        set settings = jsonb_set(settings, '{numbering}', coalesce(settings->'numbering', '{}'::jsonb)
              || jsonb_build_object('nextNumber', coalesce((settings->'numbering'->>'nextNumber')::bigint, 1) + 1)),
            updated_at = now()
      where workspace_id = ?
      returning settings->'numbering'->>'prefix' as prefix, ((settings->'numbering'->>'nextNumber')::bigint - 1)::text as number`,
    [ctx.actor.workspaceId],
  );
  const row = rows[0]!;
  return `${row.prefix ?? ''}${row.number}`;
}
