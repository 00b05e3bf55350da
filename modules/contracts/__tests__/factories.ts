// The contracts module's factories for the registry-walking suites (test/support/factories.ts merges them).
import { createVia, type Factory } from '../../../test/support/factories';
import { unique } from '../../../test/support/unique';

/** The contract of each signer the `contract-signer` factory made (the signer is read through its contract). */
export const contractOfSigner = new Map<string, string>();

export const factories: Record<string, Factory> = {
  contract: (http) =>
    createVia(http, '/api/v1/contracts', {
      title: `Contract ${unique()}`,
      signers: [{ name: 'Ann Signer', email: `ann-${unique()}@example.com` }],
    }),
  'contract-signer': async (http) => {
    const res = await http.post('/api/v1/contracts', {
      title: `Contract ${unique()}`,
      signers: [{ name: 'Ann Signer', email: `ann-${unique()}@example.com` }],
    });
    if (res.status !== 201) throw new Error(`contract-signer factory: ${res.status} ${JSON.stringify(res.body)}`);
    const signerId: string = res.body.data.signers[0]._id;
    contractOfSigner.set(signerId, res.body.data._id);
    return signerId;
  },
};
