import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';

// Served publicly by its random token (image tags cannot send credentials); the token, not
// the time-ordered _id, is what makes the URL unguessable.
export const Image = defineEntity({
  name: 'Image',
  tableName: 'image',
  properties: {
    ...tenantProps,
    token: p.string().length(64).unique(),
    contentType: p.string().length(100),
    size: p.integer(),
    sha256: p.string().length(64),
    data: p.blob(),
    sourceUrl: p.string().length(2048).nullable(),
  },
});
export type Image = InferEntity<typeof Image>;
