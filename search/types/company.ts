import { Company } from '../../modules/companies';
import { defineSearchType, joinParts } from './definition';

export const companySearch = defineSearchType<Company>({
  type: 'company',
  entity: Company,
  title: (c) => c.name,
  titleFields: ['name'],
  subtitle: (c) => joinParts(c.industry, c.city, c.website ?? c.email),
  fields: [
    { attribute: 'title', value: (c) => c.name, pg: ['name'] },
    { attribute: 'email', value: (c) => c.email, pg: ['email'] },
    { attribute: 'website', value: (c) => c.website, pg: ['website'] },
    { attribute: 'cvr', value: (c) => c.cvr, pg: ['cvr'], exact: true },
    { attribute: 'phone', value: (c) => c.phone, pg: ['phone'], exact: true },
    { attribute: 'city', value: (c) => c.city, pg: ['city'] },
    { attribute: 'industry', value: (c) => c.industry, pg: ['industry'] },
    { attribute: 'tags', value: (c) => c.tags, pg: ['tags'] },
  ],
});
