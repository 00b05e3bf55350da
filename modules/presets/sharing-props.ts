import { p } from '../../platform/orm/base';
import type { Visibility } from './sharing';

/** The sharing columns of filter presets and dashboard layouts (who sees an item: sharing.ts). */
export const sharingProps = {
  visibility: p.string().length(20).$type<Visibility>().default('private'),
  userIds: p.array().default([]),
  groupIds: p.array().default([]),
  ownerId: p.string().length(24),
};
