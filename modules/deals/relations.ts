import type { CompanyRelations } from '../companies';
import type { PersonRelations } from '../people';
import { listDealsFor } from './deals-list';
import { dealView } from './deals.schemas';
import { detachCompanyDeals, detachPersonDeals } from './deals.service';

/** Deals' part of the company routes (companies' CompanyRelations): a company's deals, detached on its delete. */
export const companyDeals: CompanyRelations['deals'] = {
  view: dealView,
  list: (ctx, id, page) => listDealsFor(ctx, { company: id }, page),
  detachAll: detachCompanyDeals,
};

/** Deals' part of the person routes (PersonRelations): the deals with the person as contact, detached on its delete. */
export const personDeals: PersonRelations['deals'] = {
  view: dealView,
  list: (ctx, id, page) => listDealsFor(ctx, { personRef: id }, page),
  detachAll: detachPersonDeals,
};
