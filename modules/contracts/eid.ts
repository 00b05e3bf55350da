import { DomainError } from '../../platform/errors';

/** The env var that names the national e-ID signing provider (e.g. a MitID/BankID broker). */
export const EID_PROVIDER_ENV = 'EID_PROVIDER_URL';

/**
 * Port of a national electronic-ID signing provider (signatureLevel `eid`). No adapter ships yet:
 * until one is configured, sending an eid contract answers 503 `not_configured` naming the variable.
 */
export interface EidProvider {
  readonly name: string;
  /** Throws not_configured when eid signing cannot run. */
  assertConfigured(): void;
}

export function eidProviderFromConfig(url: string | undefined): EidProvider {
  return {
    name: url ? 'http' : 'none',
    assertConfigured() {
      if (!url)
        throw new DomainError(
          'not_configured',
          `eid signing is not configured: set ${EID_PROVIDER_ENV} to the national e-ID signing provider`,
          { env: EID_PROVIDER_ENV },
        );
      // A URL alone is not an adapter: refuse honestly rather than fall back to standard signing.
      throw new DomainError(
        'not_configured',
        `eid signing: no adapter for the provider at ${EID_PROVIDER_ENV} is installed in this build`,
        { env: EID_PROVIDER_ENV },
      );
    },
  };
}
