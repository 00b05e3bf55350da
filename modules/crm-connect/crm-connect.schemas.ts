import { z } from 'zod';
import { requiredText } from '../../platform/shared/schemas';
import { isoDate } from '../../platform/shared/record-fields';
import { callStatus, direction, duration, externalId } from '../calls';

/** Exactly one of phone or email (checked by the domain, which also normalises the phone). */
export const lookupQuery = z.object({
  phone: z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters').optional(),
  email: z.email({ message: 'must be a valid e-mail address' }).max(320).optional(),
});

export const connectorCallBody = z.object({
  phone: requiredText(50).describe('the other party; matched to a person, else a company, else a lead'),
  direction: direction.optional(),
  status: callStatus.optional(),
  duration: duration.optional(),
  startedAt: isoDate.optional(),
  externalId: externalId.optional().describe("the connector's call id; a repeat answers the stored call with 200"),
  subject: z.string().trim().max(300).optional(),
});
