import { canChange, canSee, type Shared } from '../sharing';

const OWNER = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const NAMED = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const OTHER = 'cccccccccccccccccccccccc';
const item = (visibility: Shared['visibility']): Shared => ({
  ownerId: OWNER,
  visibility,
  userIds: [NAMED],
  groupIds: ['dddddddddddddddddddddddd'],
});

describe('sharing visibility', () => {
  it.each([
    ['workspace', [OWNER, NAMED, OTHER]],
    ['private', [OWNER]],
    ['user', [OWNER, NAMED]],
    // No user groups exist yet: group items are visible to their owner only.
    ['group', [OWNER]],
  ] as const)('%s is visible to exactly its audience', (visibility, audience) => {
    for (const userId of [OWNER, NAMED, OTHER])
      expect([userId, canSee({ userId }, item(visibility))]).toEqual([
        userId,
        (audience as readonly string[]).includes(userId),
      ]);
  });

  it('the owner, or an owner/admin role, may change', () => {
    expect(canChange({ userId: OWNER, role: 'member' }, item('workspace'))).toBe(true);
    expect(canChange({ userId: NAMED, role: 'member' }, item('user'))).toBe(false);
    expect(canChange({ userId: OTHER, role: 'admin' }, item('workspace'))).toBe(true);
    expect(canChange({ userId: OTHER, role: 'owner' }, item('workspace'))).toBe(true);
  });
});
