import type { AppConfig } from '../../platform/config';
import { createAccountTransports, type AccountTransports } from './account-transports';
import { trackingKey, type TrackingConfig } from './tracking';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import { DomainError } from '../../platform/errors';
import type { SafeFetch } from '../../platform/net/safe-fetch';
import { smsGatewayFromConfig, smtpSettings, type EmailTransport, type SmsGateway } from '../messaging';
import { createSmtpTransport } from '../../adapters/smtp/smtp-transport';

export interface MessagingDeps {
  transport: EmailTransport;
  gateway: SmsGateway;
  /** Pooled SMTP transports of the connected mailboxes (email_account). */
  accounts: AccountTransports;
  /** Open/click tracking (PUBLIC_BASE_URL + a key derived from CRM_SECRETS_KEY); null without the key. */
  tracking: TrackingConfig | null;
  /** Closes the SMTP connection pools (worker shutdown). */
  close(): void;
}

/** A port that fails every use with the configuration problem, so callers can always be built. */
export function unconfiguredTransport(problem: string): EmailTransport {
  const fail = (): never => {
    throw new DomainError('not_configured', problem);
  };
  return { assertConfigured: fail, send: async () => fail() };
}

/**
 * The e-mail transport and SMS gateway the environment configures, or ones that say what to configure. The
 * mailbox transports and the tracking key are the e-mail module's; the SMS gateway is messaging's
 * (smsGatewayFromConfig), so messaging imports nothing of e-mail.
 */
export function createMessagingDeps(
  config: Pick<AppConfig, 'mail' | 'sms' | 'outboundAllowHosts' | 'secretsKey'> &
    Partial<Pick<AppConfig, 'publicBaseUrl'>>,
  options: { fetch?: SafeFetch } = {},
): MessagingDeps {
  const mail = smtpSettings(config.mail);
  const smtp = 'settings' in mail ? createSmtpTransport(mail.settings) : null;
  const accounts = createAccountTransports(config.secretsKey);
  const key = parseSecretsKey(config.secretsKey);
  return {
    accounts,
    tracking: key && config.publicBaseUrl ? { baseUrl: config.publicBaseUrl, key: trackingKey(key) } : null,
    transport: smtp ?? unconfiguredTransport('problem' in mail ? mail.problem : ''),
    gateway: smsGatewayFromConfig(config, options),
    close: () => {
      smtp?.close();
      accounts.close();
    },
  };
}
