import { defineResource } from '../../platform/shared/resource';
import { rowLoader } from '../../platform/shared/record-view';
import { getSms } from './sms-messages.service';
import { ScheduledSms, SmsMessage, SmsTemplate, SmsWorkspaceSettings } from './sms-message.entity';
import { OutboundMessage } from './outbound-message.entity';

export const smsResource = defineResource<SmsMessage>({
  kind: 'sms',
  collection: 'sms',
  entity: SmsMessage,
  ownedEntities: [ScheduledSms, SmsTemplate, SmsWorkspaceSettings, OutboundMessage],
  load: (ctx, id) => getSms(ctx, id),
  parents: { personId: 'person', companyId: 'company', leadId: 'lead', dealId: 'deal' },
  automation: {
    // sms_received/sms_replied: the message plus the contact it was linked to, so a reply can use contact.*.
    entityType: 'sms',
    namespace: 'sms',
    load: rowLoader(SmsMessage, (sms) => ({
      namespaces: { sms: { _id: sms._id, direction: sms.direction, from: sms.from, to: sms.to, body: sms.body } },
      links: { leadId: sms.leadId, dealId: sms.dealId, personId: sms.personId, companyId: sms.companyId },
    })),
  },
});
