/** Trigger names that are not one declared outbox event (definition.schemas.ts checks TRIGGER_TYPES against them). */

/**
 * Triggers that are not one outbox event: `scheduled` and `webhook` are started by the schedule and
 * the webhook endpoint; `record_created` and `record_changed` match families of events (triggers.ts).
 */
export const NON_EVENT_TRIGGERS = ['record_created', 'record_changed', 'scheduled', 'webhook'] as const;

/** The calculator and insight triggers (none is emitted yet). */
export const INSIGHT_TRIGGERS = [
  // The calculators service emits calculator_submission_created, not this name.
  'calculator_submission',
  'calculator_submission_processed',
  'reply_intent_detected',
  'lifecycle_stage_changed',
  'engagement_risk_detected',
  'winback_opportunity',
] as const;

/**
 * Triggers of the spec's Events table that no code emits (no declared event of that name): they
 * can be saved and never fire. The event catalog test fails once one of them is declared.
 */
export const UNEMITTED_TRIGGERS = [
  'agent_field_change',
  'agent_new_company',
  'agent_any',
  'sales_analytics_done',
  'transcription_ready',
  'offer_expired',
  'offer_pdf_downloaded',
  'contract_period_ending',
  'contract_viewed',
  ...INSIGHT_TRIGGERS,
  'user_joined_workspace',
  'ads_lead_form_submitted',
] as const;
