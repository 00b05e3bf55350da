import { z } from 'zod';

/** What the browser extension may upload: screenshots of a page. */
export const CAPTURE_TYPES = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const;
export type CaptureType = keyof typeof CAPTURE_TYPES;
export const MAX_CAPTURES_PER_REQUEST = 10;

const TYPES = Object.keys(CAPTURE_TYPES) as [CaptureType, ...CaptureType[]];
const capture = z.object({
  contentType: z.enum(TYPES, { message: `must be one of ${TYPES.join(', ')}` }),
  size: z.number({ message: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').optional(),
});
// No body: one PNG capture (a screenshot), the extension's common case.
export const presignCapturesBody = z.object({
  captures: z
    .array(capture, { message: 'must be an array' })
    .min(1, 'must not be empty')
    .max(MAX_CAPTURES_PER_REQUEST, `at most ${MAX_CAPTURES_PER_REQUEST} captures per request`)
    .default([{ contentType: 'image/png' }]),
});
export type PresignInput = z.infer<typeof presignCapturesBody>;
