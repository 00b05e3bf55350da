import type { AppConfig } from '../../platform/config';
import type { SafeFetch } from '../../platform/net/safe-fetch';
import { DomainError } from '../../platform/errors';
import { createHttpSmsGateway } from '../../adapters/sms/http-sms-gateway';
import type { SmsGateway } from '../../platform/ports/messaging.port';
import { smsSettings } from './settings';

/** A gateway that fails every use with the configuration problem, so callers can always be built. */
export function unconfiguredGateway(problem: string): SmsGateway {
  const fail = (): never => {
    throw new DomainError('not_configured', problem);
  };
  return { assertConfigured: fail, send: async () => fail() };
}

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
