import { Activity } from '../activities/activity.entity';
import { Company } from '../companies/company.entity';
import { CustomFieldDefinition } from '../custom-fields/custom-field-definition.entity';
import { Deal } from '../deals/deal.entity';
import { Image } from '../images/image.entity';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { CompanyPerson, Person } from '../people/person.entity';
import { ApiKey } from '../workspaces/api-key.entity';
import { RateLimitWindow } from '../workspaces/rate-limit-window.entity';
import { User } from '../workspaces/user.entity';
import { Workspace } from '../workspaces/workspace.entity';

/** Rows of these entities belong to one workspace; the `tenant` filter guards every read of them. */
export const tenantEntities = [User, Company, Person, CompanyPerson, Activity, Deal, Image, CustomFieldDefinition];

/** Global rows: looked up before a workspace is known (auth) or served across workspaces (outbox). */
export const globalEntities = [Workspace, ApiKey, OutboxEvent, RateLimitWindow];

export const allEntities = [...globalEntities, ...tenantEntities];
