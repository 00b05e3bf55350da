import type { z } from 'zod';
import type { Ctx } from '../../platform/context';
import type { PageRequest } from '../../platform/shared/listing';
import type { LinkResultView, UnlinkResultView } from './companies.schemas';
import type { DetachCompanyDeals, UnlinkCompanyPeople } from './companies.service';

/** A paginated list of another module's records that belong to one record (GET /companies/:id/deals). */
export interface RelatedList<V extends z.ZodType = z.ZodType> {
  /** One item as listed. */
  view: V;
  list: (ctx: Ctx, id: string, page: PageRequest) => Promise<{ items: z.infer<V>[]; total: number }>;
}

/**
 * What a company's routes list, link and detach of the people and deals modules: they reference companies, so
 * companies import neither; each module gives its part (people's companyPeople, deals' companyDeals) and the
 * composition (app/modules.ts) passes them to the companies module.
 */
export interface CompanyRelations {
  people: RelatedList & {
    link: (ctx: Ctx, companyId: string, personId: string) => Promise<LinkResultView>;
    unlink: (ctx: Ctx, companyId: string, personId: string) => Promise<UnlinkResultView>;
    /** On delete: the company's people stay, unlinked. */
    unlinkAll: UnlinkCompanyPeople;
  };
  deals: RelatedList & {
    /** On delete: the company's deals stay, without it. */
    detachAll: DetachCompanyDeals;
  };
}
