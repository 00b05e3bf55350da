import { defineResource } from '../../platform/shared/resource';
import { getOffer } from './offers.service';
import { CatalogItem, Offer, OfferProduct, OfferSettings, OfferTemplate } from './offer.entity';

// The public view (serializeOffer) needs the offer's resolved links, so it is not a row function.
export const offerResource = defineResource<Offer>({
  kind: 'offer',
  collection: 'offers',
  entity: Offer,
  ownedEntities: [OfferSettings, OfferTemplate, OfferProduct, CatalogItem],
  load: getOffer,
  parents: { companyRef: 'company', personRef: 'person', dealRef: 'deal', ownerId: 'user' },
  search: 'offer',
});
