import type { Ctx } from '../../platform/context';
import { Person } from '../people';
import {
  Call,
  createCall,
  serializeCall,
  type CallDirection,
  type CallInput,
  type CallStatus,
  type CallView,
} from '../calls';
import { firstPhoneMatch } from './lookup.service';

export interface ConnectorCallInput {
  phone: string;
  direction?: CallDirection;
  status?: CallStatus;
  duration?: number;
  startedAt?: Date;
  externalId?: string;
  subject?: string;
}

/**
 * Logs a call reported by a telephony connector, linked to the record its number belongs to
 * (person — plus the person's primary company —, else company, else lead). Idempotent on externalId.
 */
export async function logConnectorCall(
  ctx: Ctx,
  input: ConnectorCallInput,
): Promise<{ call: CallView; created: boolean }> {
  if (input.externalId) {
    const existing = await ctx.em.findOne(Call, { externalId: input.externalId });
    if (existing) return { call: serializeCall(existing), created: false };
  }
  const match = await firstPhoneMatch(ctx, input.phone);
  const links: Pick<CallInput, 'personId' | 'companyId' | 'leadId'> = {};
  if (match?.entityType === 'person') {
    links.personId = match._id;
    links.companyId = (await ctx.em.findOne(Person, { _id: match._id }, { fields: ['companyId'] }))?.companyId ?? null;
  } else if (match?.entityType === 'company') {
    links.companyId = match._id;
  } else if (match?.entityType === 'lead') {
    links.leadId = match._id;
  }
  return createCall(ctx, { ...input, ...links });
}
