import { defineResource, loadById } from '../../platform/shared/resource';
import { Email } from './email.entity';
import { EmailAccount } from './email-account.entity';
import { EmailSignature, EmailTemplate } from './email-template.entity';
import { EmailBulk, EmailBulkRecipient } from './email-bulk.entity';
export const emailResource = defineResource<Email>({
  kind: 'email',
  collection: 'emails',
  entity: Email,
  ownedEntities: [EmailAccount, EmailTemplate, EmailSignature, EmailBulk, EmailBulkRecipient],
  load: loadById(Email, 'email'),
});
