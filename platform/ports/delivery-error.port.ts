import { DomainError } from '../errors';

/**
 * not_sent: the provider refused the message or was never reached, so sending it again cannot
 * duplicate it. unknown: the connection ended after the message may have been handed over.
 */
export type DeliveryOutcome = 'not_sent' | 'unknown';

/** A provider failure (502) that says whether the message may have left and whether a retry can help. */
export class DeliveryError extends DomainError {
  constructor(
    message: string,
    readonly outcome: DeliveryOutcome,
    /** True when the provider refused for good (bad address, auth): retrying the same message is pointless. */
    readonly permanent: boolean,
  ) {
    super('upstream_failed', message, { outcome, permanent });
    this.name = 'DeliveryError';
  }
}
