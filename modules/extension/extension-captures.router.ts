import type { RouteFactory } from '../../platform/http/app-deps';
import { fileDeps, presignCaptures, presignCapturesBody } from '../files';
import { ok, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { captureUploadsView } from './extension.views';

export const extensionCapturesRoutes: RouteFactory = (deps) => [
  route({
    method: 'POST',
    path: '/api/v1/extension/captures/presign',
    section: 'Browser extension',
    access: { scopes: ['contribute'] },
    body: presignCapturesBody,
    summary:
      'Presigned upload URLs for extension captures (PNG, JPEG or WebP screenshots): body captures [{ contentType, size? }] (1-10; none = one PNG).',
    description:
      'Each upload is { key, uploadUrl, method: PUT, headers, expiresAt, maxBytes }: PUT the bytes to uploadUrl with the headers before expiresAt. ' +
      'S3 storage answers presigned S3 URLs; local storage answers signed URLs of this API (403 altered, 410 expired, 413 over FILE_MAX_BYTES, 400 when the bytes are not the signed type).',
    response: envelopes.data(captureUploadsView),
    handler: async ({ ctx, body }) => ok(await presignCaptures(ctx, fileDeps(deps), body)),
  }),
];
