import { maskNodeSecrets, maskSecret, restoreMaskedSecrets } from '../../../domain/automations/secrets';

const trigger = (config: Record<string, unknown>, triggerType = 'webhook') => ({ id: 't', type: 'trigger', data: { triggerType, config } });
const note = { id: 'n1', type: 'action', data: { actionType: 'create_note', config: { noteContent: 'x', secret: 'not a trigger' } } };

describe('webhook trigger secret masking', () => {
  it.each([
    ['abcdefghijkl', '****ijkl'],
    ['abcdefghijk', '****'],
    ['k', '****'],
  ])('maskSecret(%s) = %s', (secret, mask) => expect(maskSecret(secret)).toBe(mask));

  it('masks only the webhook trigger secret and leaves the stored nodes untouched', () => {
    const nodes = [trigger({ secret: 'a-long-secret-1234', entityMapping: { entityType: 'Lead' } }), note];
    const masked = maskNodeSecrets(nodes);
    expect(masked[0]!.data.config).toEqual({ secret: '****1234', entityMapping: { entityType: 'Lead' } });
    expect(masked[1]).toBe(note);
    expect(nodes[0]!.data.config.secret).toBe('a-long-secret-1234');
    expect(maskNodeSecrets([trigger({ secret: 'x' }, 'lead_created')])[0]!.data.config.secret).toBe('x');
    expect(maskNodeSecrets([trigger({})])[0]!.data.config).toEqual({});
  });

  it('restores the stored secret only for its exact mask', () => {
    const stored = [trigger({ secret: 'a-long-secret-1234' })];
    expect(restoreMaskedSecrets([trigger({ secret: '****1234' })], stored)[0]!.data.config.secret).toBe('a-long-secret-1234');
    expect(restoreMaskedSecrets([trigger({ secret: '****9999' })], stored)[0]!.data.config.secret).toBe('****9999');
    expect(restoreMaskedSecrets([trigger({ secret: 'new-one' })], stored)[0]!.data.config.secret).toBe('new-one');
    expect(restoreMaskedSecrets([trigger({})], stored)[0]!.data.config).toEqual({});
    expect(restoreMaskedSecrets([trigger({ secret: '****' })], [trigger({})])[0]!.data.config.secret).toBe('****');
  });
});
