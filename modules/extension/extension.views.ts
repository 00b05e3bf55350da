import { z } from 'zod';
import { dateTimeView, idView } from '../../platform/shared/views';

/** Response views of the browser extension routes (contribution, observations, network, domains, captures). */

export const contributionView = z.object({
  enabled: z.boolean(),
  changedAt: dateTimeView.nullable().describe('when contribution was last switched (null: never)'),
  changedBy: idView.nullable(),
  observations: z.number().int().describe('observations stored by this workspace'),
});
export type ContributionView = z.infer<typeof contributionView>;

export const observationsResultView = z.object({
  received: z.number().int(),
  stored: z.number().int().describe('one per profile: newer replaces older'),
  shared: z.boolean().describe('the workspace contributes, so the observations are shared'),
});
export type ObservationsResultView = z.infer<typeof observationsResultView>;

/** Public-profile facts: the newest value of each across the contributing workspaces. */
export const observedFactsView = z.object({
  name: z.string().optional(),
  headline: z.string().optional(),
  title: z.string().optional(),
  companyName: z.string().optional(),
  companyProfile: z.string().optional(),
  domain: z.string().optional(),
  location: z.string().optional(),
  industry: z.string().optional(),
  employees: z.number().int().optional(),
});

export const networkProfileView = z.object({
  profileUrl: z.string(),
  handle: z.string(),
  kind: z.enum(['company', 'person']),
  facts: observedFactsView,
  contributors: z.number().int().describe('contributing workspaces that observed it (never which)'),
  firstObservedAt: dateTimeView,
  lastObservedAt: dateTimeView,
});
export type NetworkProfileView = z.infer<typeof networkProfileView>;

export const knownDomainView = z.object({
  domain: z.string(),
  companyIds: z.array(idView).describe('at most 20'),
});
export type KnownDomainView = z.infer<typeof knownDomainView>;

export const captureUploadView = z.object({
  key: z.string().describe('the object key of the capture'),
  contentType: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  uploadUrl: z.string(),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()).describe('headers to send with the PUT (the signature covers them)'),
  expiresAt: dateTimeView,
  maxBytes: z.number().int(),
});

export const captureUploadsView = z.object({ uploads: z.array(captureUploadView) });
export type CaptureUploadsView = z.infer<typeof captureUploadsView>;
