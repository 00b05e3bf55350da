import { defineResource, loadById } from '../../platform/shared/resource';
import { CalculatorSubmission, OfferType } from './offer-type.entity';
export const offerTypeResource = defineResource<OfferType>({
  kind: 'offer-type',
  collection: 'offer-types',
  entity: OfferType,
  ownedEntities: [CalculatorSubmission],
  load: loadById(OfferType, 'offer type'),
});
