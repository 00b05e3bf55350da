import type { AppConfig } from '../config';
import type { SafeFetch } from '../net/safe-fetch';
import { unconfiguredGateway } from './factory';
import { createHttpSmsGateway } from '../../adapters/sms/http-sms-gateway';
import type { SmsGateway } from './ports';
import { smsSettings } from './settings';

/** The SMS gateway alone (the API needs no SMTP pool): the configured one, or one that answers not_configured. */
export function smsGatewayFromConfig(
  config: Pick<AppConfig, 'sms' | 'outboundAllowHosts'>,
  options: { fetch?: SafeFetch } = {},
): SmsGateway {
  const sms = smsSettings(config.sms);
  return 'settings' in sms
    ? createHttpSmsGateway(sms.settings, { allowHosts: config.outboundAllowHosts, fetch: options.fetch })
    : unconfiguredGateway(sms.problem);
}
