import { defineResource, loadById } from '../../platform/shared/resource';
import { CalculatorSubmission, OfferType } from './offer-type.entity';
export const offerTypeResource = defineResource<OfferType>({
  kind: 'offer-type',
  collection: 'offer-types',
  getPath: '/api/v1/offer-types/:id',
  entity: OfferType,
  ownedEntities: [CalculatorSubmission],
  load: loadById(OfferType, 'offer type'),
});
