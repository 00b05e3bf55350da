import { z } from 'zod';
import { p } from '../../platform/orm/base';
import { isoDate } from '../../platform/shared/record-fields';
import { clearableText } from '../../platform/shared/schemas';
import { dateTimeView, idView } from '../../platform/shared/views';

// What every time entry has, a project's (time-entries.service.ts) or a support ticket's: the hours logged (hours
// plus minutes in the body: entryHours), a description, the date, whether it is billable, and who logged it.

/** The entry's columns after its owner's (projectId, ticketId, …). */
export const timeEntryProps = {
  hours: p.double().$type<number>(),
  description: p.text().nullable(),
  date: p.datetime(),
  billable: p.boolean().default(true),
  userId: p.string().length(24),
};

/** The body's hours and minutes. */
export const timeEntryHours = z
  .number({ message: 'must be a number' })
  .gt(0, 'must be greater than 0')
  .max(10_000, 'must be at most 10000');
export const timeEntryMinutes = z
  .number({ message: 'must be a number' })
  .min(0, 'must be at least 0')
  .max(100_000)
  .optional()
  .describe('added to hours');

/** The body's description, date and billable flag. */
export const timeEntryDetails = {
  description: clearableText(10_000).optional(),
  date: isoDate.optional().describe('default now'),
  billable: z.boolean({ message: 'must be a boolean' }).optional().describe('default true'),
};

/** The entry as the API shows it, after its owner's ids. */
export const timeEntryViewFields = {
  hours: z.number(),
  description: z.string().nullable(),
  date: dateTimeView,
  billable: z.boolean(),
  userId: idView,
};
