// The contracts module's factories for the registry-walking suites (test/support/factories.ts merges them).
import { createVia, type Factory } from '../../../test/support/factories';
import { unique } from '../../../test/support/unique';

export const factories: Record<string, Factory> = {
  contract: (http) =>
    createVia(http, '/api/v1/contracts', {
      title: `Contract ${unique()}`,
      signers: [{ name: 'Ann Signer', email: `ann-${unique()}@example.com` }],
    }),
};
