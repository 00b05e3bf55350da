import {
  assertCategory,
  assertStage,
  DEFAULT_SUPPORT_STAGES,
  statusEvent,
  ticketNumberInSubject,
  ticketRef,
  ticketStatusTransitions,
  type TicketStatus,
} from '../support.rules';
import { matchesTrigger } from '../../automations/triggers';

describe('support ticket status transitions', () => {
  it.each([
    ['open', 'pending', true],
    ['open', 'resolved', true],
    ['pending', 'on_hold', true],
    ['on_hold', 'open', true],
    ['resolved', 'open', true],
    ['resolved', 'closed', true],
    ['resolved', 'pending', false],
    ['resolved', 'on_hold', false],
    ['closed', 'open', true],
    ['closed', 'resolved', false],
    ['closed', 'pending', false],
    ['closed', 'closed', true],
  ] as [TicketStatus, TicketStatus, boolean][])('%s → %s: %s', (from, to, allowed) => {
    expect(ticketStatusTransitions.can(from, to)).toBe(allowed);
    if (!allowed)
      expect(() => ticketStatusTransitions.assert(from, to)).toThrow(
        expect.objectContaining({ code: 'invalid_state' }),
      );
  });

  it.each([
    ['open', 'resolved', 'support_ticket_resolved'],
    ['pending', 'closed', 'support_ticket_closed'],
    ['resolved', 'closed', 'support_ticket_closed'],
    ['resolved', 'open', 'support_ticket_reopened'],
    ['closed', 'open', 'support_ticket_reopened'],
    ['open', 'pending', null],
    ['open', 'open', null],
  ] as [TicketStatus, TicketStatus, string | null][])('%s → %s emits %s', (from, to, event) => {
    expect(statusEvent(from, to)).toBe(event);
  });
});

describe('ticket references in subjects', () => {
  it.each([
    ['Re: Printer [#12]', 12],
    ['[#7] hello', 7],
    ['Fwd: Re: x [#123456789]', 123456789],
    ['#12 no brackets', null],
    ['[# 12]', null],
    ['', null],
    [null, null],
  ] as [string | null, number | null][])('%s → %s', (subject, n) => expect(ticketNumberInSubject(subject)).toBe(n));
  it('round-trips', () => expect(ticketNumberInSubject(`Re: A ${ticketRef(42)}`)).toBe(42));
});

describe('stages and categories', () => {
  it('accept known values only (400 naming the field)', () => {
    expect(() => assertStage(DEFAULT_SUPPORT_STAGES, 'stageId', 2)).not.toThrow();
    expect(() => assertStage(DEFAULT_SUPPORT_STAGES, 'stageId', 5)).toThrow(/stageId: unknown support stage 5/);
    expect(() => assertCategory(['general', 'billing'], 'billing')).not.toThrow();
    expect(() => assertCategory(['general'], 'sales')).toThrow(/category: must be one of general/);
    expect(() => assertCategory([], 'general')).not.toThrow();
  });
});

describe('automation triggers on ticket events (entityType support-ticket)', () => {
  const ev = (type: string) => ({
    type,
    entityType: 'support-ticket',
    entityId: 't1',
    payload: { ticket: { _id: 't1' }, changes: { status: { from: 'open', to: 'resolved' } } },
  });
  it.each([
    ['support_ticket_created', {}, 'support_ticket_created', true],
    ['support_ticket_resolved', {}, 'support_ticket_resolved', true],
    ['record_created', { entityTypes: ['support_ticket'] }, 'support_ticket_created', true],
    ['record_created', { entityTypes: ['lead'] }, 'support_ticket_created', false],
    ['record_changed', { entityTypes: ['support_ticket'] }, 'support_ticket_updated', true],
  ])('%s %j ← %s: %s', (triggerType, config, eventType, expected) => {
    expect(matchesTrigger({ triggerType, config }, ev(eventType))).toBe(expected);
  });
});
