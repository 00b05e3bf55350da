import {
  hasSecretRefs,
  isCredentialHeader,
  maskConfigSecrets,
  maskNodeSecrets,
  maskSecret,
  redactNodeSecrets,
  restoreMaskedSecrets,
  SECRET_REF,
} from '../secrets';

const trigger = (config: Record<string, unknown>, triggerType = 'webhook') => ({
  id: 't',
  type: 'trigger',
  data: { triggerType, config },
});
const note = {
  id: 'n1',
  type: 'action',
  data: { actionType: 'create_note', config: { noteContent: 'x', secret: 'not a trigger' } },
};

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
    expect(restoreMaskedSecrets([trigger({ secret: '****1234' })], stored)[0]!.data.config.secret).toBe(
      'a-long-secret-1234',
    );
    expect(restoreMaskedSecrets([trigger({ secret: '****9999' })], stored)[0]!.data.config.secret).toBe('****9999');
    expect(restoreMaskedSecrets([trigger({ secret: 'new-one' })], stored)[0]!.data.config.secret).toBe('new-one');
    expect(restoreMaskedSecrets([trigger({})], stored)[0]!.data.config).toEqual({});
    expect(restoreMaskedSecrets([trigger({ secret: '****' })], [trigger({})])[0]!.data.config.secret).toBe('****');
  });
});

const http = (headers: Record<string, unknown>, id = 'h1') => ({
  id,
  type: 'action',
  data: { actionType: 'http_request', config: { method: 'POST', url: 'https://x.test', headers } },
});

describe('http_request credential headers', () => {
  it.each([
    'Authorization',
    'authorization',
    'Proxy-Authorization',
    'X-Api-Key',
    'api_key',
    'ApiKey',
    'Cookie',
    'X-Auth-Token',
    'X-Access-Token',
    'X-Client-Secret',
    'X-Functions-Key',
    'Private-Key',
    'X-Session-Id',
    'X-Signature',
    'X-Password',
  ])('%s is a credential header', (name) => expect(isCredentialHeader(name)).toBe(true));

  it.each(['Content-Type', 'Accept', 'X-Request-Id', 'Idempotency-Key', 'User-Agent', 'X-Keyword'])(
    '%s is not',
    (name) => expect(isCredentialHeader(name)).toBe(false),
  );

  it('masks credential header values (only those) in reads', () => {
    const nodes = [
      http({ Authorization: 'Bearer abcdefghijkl-9876', 'X-Api-Key': 'short', Accept: 'application/json' }),
    ];
    expect(maskNodeSecrets(nodes)[0]!.data.config.headers).toEqual({
      Authorization: '****9876',
      'X-Api-Key': '****',
      Accept: 'application/json',
    });
    expect(nodes[0]!.data.config.headers.Authorization).toBe('Bearer abcdefghijkl-9876');
  });

  it('restores a masked header from the same node and header name only', () => {
    const stored = [
      http({ Authorization: 'Bearer abcdefghijkl-9876' }),
      http({ Authorization: 'Bearer zzzzzzzzzzzz-1111' }, 'h2'),
    ];
    const back = restoreMaskedSecrets(
      [
        http({ authorization: '****9876' }),
        http({ Authorization: '****9876' }, 'h2'),
        http({ Authorization: 'Bearer new-token' }, 'h3'),
      ],
      stored,
    );
    expect(back[0]!.data.config.headers).toEqual({ authorization: 'Bearer abcdefghijkl-9876' });
    expect(back[1]!.data.config.headers).toEqual({ Authorization: '****9876' }); // h2's stored value ends in 1111
    expect(back[2]!.data.config.headers).toEqual({ Authorization: 'Bearer new-token' });
  });

  it('workflow inputs carry references instead of secrets; the step log keeps masks', () => {
    const nodes = [
      trigger({ secret: 'hook-secret-123456' }),
      http({ Authorization: 'Bearer abcdefghijkl-9876', Accept: 'x' }),
      note,
    ];
    const redacted = redactNodeSecrets(nodes);
    expect(JSON.stringify(redacted)).not.toMatch(/hook-secret|abcdefghijkl|9876|3456/);
    expect(redacted[0]!.data.config).toEqual({ secret: SECRET_REF });
    expect((redacted[1]!.data.config as { headers?: unknown }).headers).toEqual({
      Authorization: SECRET_REF,
      Accept: 'x',
    });
    expect(redacted[2]).toBe(note);
    expect(hasSecretRefs(redacted[1]!.data)).toBe(true);
    expect(hasSecretRefs(nodes[1]!.data)).toBe(false);
    expect(hasSecretRefs(note.data)).toBe(false);
    expect(maskConfigSecrets('http_request', { url: 'u', headers: { Cookie: 'sid=abcdefghijklmnop' } })).toEqual({
      url: 'u',
      headers: { Cookie: '****mnop' },
    });
    expect(maskConfigSecrets('create_note', { headers: { Cookie: 'sid=abcdefghijklmnop' } })).toEqual({
      headers: { Cookie: 'sid=abcdefghijklmnop' },
    });
  });
});
