/**
 * The leads module's public surface (leads, their scoring rules and routing): what code outside modules/leads may
 * import (dependency-cruiser `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`,
 * `*.events.ts`) are read by the registries directly; tests and benches may reach inside.
 */
export { Lead } from './lead.entity';
export { createLeadBody, MAX_LEAD_NOTES, MAX_LEAD_VALUE, updateLeadBody, type LeadInput } from './leads.schemas';
export { createLead, updateLead } from './leads.service';
export { rescoreChangedLeads } from './lead-scoring.service';
