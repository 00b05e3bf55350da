import type { RouteFactory } from '../../platform/http/app-deps';
import * as cards from './clip-cards.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import { clipCardView, createClipCardBody, listClipCardsQuery, updateClipCardBody } from './clip-cards.schemas';
import { read, write } from '../../platform/http/access';

export const clipCardsRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/clip-cards',
    section: 'Clip cards',
    kind: 'clip-card',
    access: { read, write },
    schemas: { list: listClipCardsQuery, create: createClipCardBody, update: updateClipCardBody, view: clipCardView },
    service: {
      list: cards.listClipCards,
      create: cards.createClipCard,
      get: viewOf(cards.getClipCard, cards.serializeClipCard),
      update: cards.updateClipCard,
      remove: cards.deleteClipCard,
    },
    summaries: {
      list: 'List clip cards (newest first); filters status (active, depleted, expired, cancelled) and projectId.',
      create: 'Create a clip card (prepaid hours) for a project.',
      get: 'Get one clip card with usedHours, remainingHours and status.',
      update: 'Update a clip card (partial); status cancelled cancels it, status active lifts a cancellation.',
      remove: 'Delete a clip card (its time entries stay).',
    },
  });
