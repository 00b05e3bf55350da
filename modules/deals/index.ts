/**
 * The deals module's public surface: what code outside modules/deals may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside. Deals reference companies and people, which import
 * nothing of deals: the composition (app/modules.ts) gives their routes the deals of a record and the deals' detach
 * on delete (companyDeals, personDeals).
 */
export { Deal } from './deal.entity';
export { FlowStage, STAGE_TYPES, type StageType } from './flow.entity';
export { dealContext } from './deal-context';
export { createDealBody, dealView, updateDealBody, type DealInput } from './deals.schemas';
export { createDeal, detachCompanyDeals, detachPersonDeals, moveDeal, updateDeal } from './deals.service';
export { listDealsFor } from './deals-list';
export { companyDeals, personDeals } from './relations';
