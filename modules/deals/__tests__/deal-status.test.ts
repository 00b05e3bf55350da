import { firstStage, nextStatus, type StatusState } from '../deal-status';
import { DomainError } from '../../../platform/errors';

const now = new Date('2026-05-01T12:00:00Z');
const earlier = new Date('2026-01-01T00:00:00Z');
const open: StatusState = { status: 'open', wonDate: null, lostDate: null };
const won: StatusState = { status: 'won', wonDate: earlier, lostDate: null };
const lost: StatusState = { status: 'lost', wonDate: null, lostDate: earlier };
const wonNow: StatusState = { status: 'won', wonDate: now, lostDate: null };
const lostNow: StatusState = { status: 'lost', wonDate: null, lostDate: now };

describe('nextStatus', () => {
  it.each([
    ['open deal, status won → won today', { current: open, currentStageType: 'open', status: 'won' }, wonNow],
    ['open deal, status lost → lost today', { current: open, currentStageType: 'open', status: 'lost' }, lostNow],
    [
      'won deal, status lost → lost, wonDate cleared',
      { current: won, currentStageType: 'open', status: 'lost' },
      lostNow,
    ],
    [
      'won deal, status open → reopened, dates cleared',
      { current: won, currentStageType: 'open', status: 'open' },
      { status: 'open', wonDate: null, lostDate: null },
    ],
    ['won deal, status won again → keeps its wonDate', { current: won, currentStageType: 'open', status: 'won' }, won],
    ['won deal, no status → unchanged', { current: won, currentStageType: 'open' }, won],
    [
      'backdated win',
      { current: open, currentStageType: 'open', status: 'won', wonDate: earlier },
      { status: 'won', wonDate: earlier, lostDate: null },
    ],
    ['move into a won stage → won', { current: open, currentStageType: 'open', nextStageType: 'won' }, wonNow],
    ['move into a lost stage → lost', { current: won, currentStageType: 'won', nextStageType: 'lost' }, lostNow],
    [
      'move from a won stage to an open stage → reopened',
      { current: won, currentStageType: 'won', nextStageType: 'open' },
      open,
    ],
    [
      'move a lost deal between open stages → reopened',
      { current: lost, currentStageType: 'open', nextStageType: 'open' },
      open,
    ],
    [
      'move to an open stage and mark lost in one call → lost',
      { current: open, currentStageType: 'open', nextStageType: 'open', status: 'lost' },
      lostNow,
    ],
    ['new deal in a won stage → won', { current: open, currentStageType: null, nextStageType: 'won' }, wonNow],
    [
      'new deal created lost in an open stage',
      { current: open, currentStageType: null, nextStageType: 'open', status: 'lost' },
      lostNow,
    ],
    ['status equal to the won stage it sits in', { current: won, currentStageType: 'won', status: 'won' }, won],
  ] as const)('%s', (_label, input, expected) => {
    expect(nextStatus({ ...input, now } as Parameters<typeof nextStatus>[0])).toEqual(expected);
  });

  it.each([
    [
      'a status other than the target won stage',
      { current: open, currentStageType: 'open', nextStageType: 'won', status: 'lost' },
      'validation',
      /target stage is a won stage/,
    ],
    [
      'reopening a deal that sits in a lost stage',
      { current: lost, currentStageType: 'lost', status: 'open' },
      'invalid_state',
      /in a lost stage/,
    ],
    [
      'winning a deal that sits in a lost stage',
      { current: lost, currentStageType: 'lost', status: 'won' },
      'invalid_state',
      /move it to an open stage/,
    ],
    [
      'wonDate without status won',
      { current: open, currentStageType: 'open', wonDate: earlier },
      'validation',
      /wonDate/,
    ],
    ['lostDate on a won deal', { current: won, currentStageType: 'open', lostDate: earlier }, 'validation', /lostDate/],
  ] as const)('refuses %s', (_label, input, code, message) => {
    let error: unknown;
    try {
      nextStatus({ ...input, now } as Parameters<typeof nextStatus>[0]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(code);
    expect((error as DomainError).message).toMatch(message);
  });
});

describe('firstStage', () => {
  it('takes the lowest-ordered open stage, else the lowest-ordered stage, else nothing', () => {
    expect(
      firstStage([
        { type: 'open', order: 3, n: 'c' },
        { type: 'won', order: 1, n: 'w' },
        { type: 'open', order: 2, n: 'b' },
      ])?.n,
    ).toBe('b');
    expect(
      firstStage([
        { type: 'lost', order: 2, n: 'l' },
        { type: 'won', order: 1, n: 'w' },
      ])?.n,
    ).toBe('w');
    expect(firstStage([])).toBeUndefined();
  });
});
