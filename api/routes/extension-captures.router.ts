import { z } from 'zod';
import type { RouteFactory } from '../app';
import { CAPTURE_TYPES, MAX_CAPTURES_PER_REQUEST, presignCaptures, type CaptureType } from '../../domain/files/captures.service';
import { ok, route } from '../http/registry';
import { fileDeps } from './files.router';

const TYPES = Object.keys(CAPTURE_TYPES) as [CaptureType, ...CaptureType[]];
const capture = z.object({
  contentType: z.enum(TYPES, { message: `must be one of ${TYPES.join(', ')}` }),
  size: z.number({ message: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').optional(),
});
// No body: one PNG capture (a screenshot), the extension's common case.
const presignBody = z.object({
  captures: z.array(capture, { message: 'must be an array' }).min(1, 'must not be empty').max(MAX_CAPTURES_PER_REQUEST, `at most ${MAX_CAPTURES_PER_REQUEST} captures per request`).default([{ contentType: 'image/png' }]),
});

export const extensionCapturesRoutes: RouteFactory = (deps) => [
  route({
    method: 'POST', path: '/api/v1/extension/captures/presign', section: 'Browser extension', access: { scopes: ['contribute'] }, body: presignBody,
    summary: 'Presigned upload URLs for extension captures (PNG, JPEG or WebP screenshots): body captures [{ contentType, size? }] (1-10; none = one PNG).',
    description:
      'Each upload is { key, uploadUrl, method: PUT, headers, expiresAt, maxBytes }: PUT the bytes to uploadUrl with the headers before expiresAt. ' +
      'S3 storage answers presigned S3 URLs; local storage answers signed URLs of this API (403 altered, 410 expired, 413 over FILE_MAX_BYTES, 400 when the bytes are not the signed type).',
    handler: async ({ ctx, body }) => ok(await presignCaptures(ctx, fileDeps(deps), body)),
  }),
];
