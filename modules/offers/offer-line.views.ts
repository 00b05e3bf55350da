import { z } from 'zod';

/** An offer's priced line as the API shows it (built by offer-lines.ts; a leaf used by it and the schemas). */
export const offerLineView = z.object({
  id: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  quantity: z.number(),
  unitPrice: z.number().describe('major units'),
  unit: z.string().nullable(),
  vatRate: z.number().describe('percent'),
  productId: z.string().nullable(),
  net: z.number(),
  vatAmount: z.number(),
  total: z.number(),
  netMinor: z.number().int(),
  vatMinor: z.number().int(),
  totalMinor: z.number().int(),
});
export type OfferLineView = z.infer<typeof offerLineView>;
