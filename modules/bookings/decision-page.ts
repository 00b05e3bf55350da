/** The HTML page of an approver's one-click link: the booking, and approve/reject forms while the link is open. */
import { DateTime } from 'luxon';
import type { BookingDecisionView } from './bookings.views';
import { publicPageHeaders } from '../../platform/http/public-page';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STATE_TEXT: Record<BookingDecisionView['state'], string> = {
  open: '',
  used: 'This link was used: the booking is %s.',
  decided: 'Someone already decided: the booking is %s.',
  expired: 'This link has expired: the approval deadline passed (the booking is %s).',
  superseded: 'The booking was rescheduled: please use the link in the newest e-mail.',
  not_approver: 'You are no longer an approver of this booking page.',
};

export const DECISION_PAGE_HEADERS = publicPageHeaders();

export function renderDecisionPage(view: BookingDecisionView, action: string): string {
  const b = view.booking;
  const local = (iso: string, fmt: string) => DateTime.fromISO(iso, { zone: b.timeZone }).toFormat(fmt);
  const when = `${local(b.startDateTime, 'cccc d LLLL yyyy, HH:mm')}–${local(b.endDateTime, 'HH:mm')} (${b.timeZone})`;
  const rows: [string, string][] = [
    ['Attendee', `${b.attendee.name} <${b.attendee.email}>`],
    ['When', when],
    ['Meeting', `${b.meetingTypeName ?? 'Meeting'} · ${b.bookingPage}`],
    ...(b.attendee.notes ? ([['Notes', b.attendee.notes]] as [string, string][]) : []),
    ...(b.approvalDeadlineAt
      ? ([['Decide by', `${local(b.approvalDeadlineAt, 'd LLLL yyyy, HH:mm')} (${b.timeZone})`]] as [string, string][])
      : []),
  ];
  const state = STATE_TEXT[view.state].replace('%s', b.status);
  const forms = view.canDecide
    ? `<form method="post" action="${esc(action)}"><input type="hidden" name="decision" value="approve">
<label>Note to the attendee (optional)<br><textarea name="notes" maxlength="5000"></textarea></label><br>
<button type="submit">Approve</button></form>
<form method="post" action="${esc(action)}"><input type="hidden" name="decision" value="reject">
<label>Reason (optional)<br><textarea name="reason" maxlength="5000"></textarea></label><br>
<button type="submit">Reject</button></form>`
    : `<p><strong>${esc(state)}</strong></p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Booking approval</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}th{text-align:left;padding-right:1rem;vertical-align:top}form{margin:1rem 0}textarea{width:100%}button{padding:.5rem 1.5rem}</style></head>
<body><h1>Booking awaiting approval</h1><table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
<p>Status: ${esc(b.status)}</p>${forms}</body></html>`;
}
