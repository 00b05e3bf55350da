import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { publicRoute } from '../../platform/http/crud';
import { IMAGE_TYPES } from './image-bytes';
import { getPublicImage } from './images.service';

export const imagesRoutes: RouteFactory = (deps) => [
  publicRoute({
    method: 'GET',
    path: '/api/v1/images/:token',
    section: 'Images',
    summary: 'The bytes of a workspace image (avatar, logo) by its public token; cacheable forever.',
    description: 'Image fields hold URLs of this endpoint. The token is 64 hex characters; an unknown one is 404.',
    reason: 'image URLs are embedded in pages that cannot send credentials; the random token is the capability',
    params: z.object({ token: z.string() }),
    response: {
      media: IMAGE_TYPES,
      description: 'the image bytes (immutable: cached for a year; ETag is its SHA-256)',
      headers: ['Cache-Control'],
    },
    handler: async ({ params }) => {
      // Unbound fork on purpose: the token lookup crosses workspaces (see getPublicImage).
      const image = await getPublicImage(deps.orm.em.fork({ clear: true, useContext: false }), params.token);
      return {
        status: 200,
        body: image.data,
        headers: {
          'Content-Type': image.contentType,
          'Cache-Control': 'public, max-age=31536000, immutable',
          'X-Content-Type-Options': 'nosniff',
          ETag: `"${image.sha256}"`,
          // Embeddable from any origin, but never a document that could run script.
          'Cross-Origin-Resource-Policy': 'cross-origin',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        },
      };
    },
  }),
];
