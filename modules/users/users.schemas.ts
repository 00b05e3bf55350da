import { z } from 'zod';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, requiredText } from '../../platform/shared/schemas';
import { dateTimeView, idView } from '../../platform/shared/views';

export const listUsersQuery = z.object({
  ...pageParams(100),
  search: z.string().trim().max(200).optional().describe('case-insensitive match on name and e-mail'),
});

/** Only these fields can be changed through the API; e-mail and role are managed by operators. */
export const updateUserBody = z
  .object({
    firstName: requiredText(200),
    lastName: clearableText(200),
    phone: clearableText(50),
    defaultUserPhone: clearableText(50),
  })
  .partial();

/** What the service writes: the parsed updateUserBody (create bodies add their required fields). */
export type UserInput = z.infer<typeof updateUserBody>;

export const userView = z.object({
  _id: idView,
  email: z.string(),
  firstName: z.string(),
  lastName: z.string().nullable(),
  phone: z.string().nullable(),
  defaultUserPhone: z.string().nullable().describe('number calls from this user are made from by default'),
  role: z.enum(['owner', 'admin', 'member']),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
  name: z.string().describe('first and last name'),
});
export type UserView = z.infer<typeof userView>;
