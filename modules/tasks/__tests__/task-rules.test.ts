import { DomainError } from '../../../platform/errors';
import { resolveParent, TASK_PARENT_FIELDS } from '../../timeline/parents';
import { DEFAULT_TASK_FLOW, resolveStageStatus, stageOfStatus, statusOfStage, type TaskFlowShape } from '../task-rules';

const flow = DEFAULT_TASK_FLOW;

describe('task stage/status rules (States table)', () => {
  it.each([
    [null, {}, { status: 'to_do', stage: 1 }, 'create without either: to_do in the first stage'],
    [null, { status: 'in_progress' }, { status: 'in_progress', stage: 2 }, 'status picks its stage'],
    [null, { status: 'done' }, { status: 'done', stage: 4 }, 'done ⇒ completed stage'],
    [null, { stage: 3 }, { status: 'blocked', stage: 3 }, 'status follows the stage'],
    [null, { stage: 4 }, { status: 'done', stage: 4 }, 'completed stage ⇒ done'],
    [null, { stage: 2, status: 'done' }, { status: 'in_progress', stage: 2 }, 'stage wins over status'],
    [null, { stage: 4, status: 'to_do' }, { status: 'done', stage: 4 }, 'completed stage wins over status'],
    [
      { status: 'done', stage: 4 },
      { status: 'to_do' },
      { status: 'to_do', stage: 1 },
      'reopen moves out of the completed stage',
    ],
    [{ status: 'blocked', stage: 3 }, {}, { status: 'blocked', stage: 3 }, 'update without either keeps both'],
  ] as const)('%j + %j → %j (%s)', (current, input, expected, _label) => {
    expect(resolveStageStatus(flow, current, input)).toEqual(expected);
  });

  it('an unknown stage is a 400 naming the valid stages', () => {
    expect(() => resolveStageStatus(flow, null, { stage: 9 })).toThrow(
      /stage: unknown task-flow stage 9; valid: 1, 2, 3, 4/,
    );
    try {
      statusOfStage(flow, 0);
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('validation');
    }
  });

  it('with two stages of one status, a status update keeps a current stage that fits', () => {
    const custom: TaskFlowShape = {
      stages: [
        { id: 10, title: 'Backlog', order: 1, status: 'to_do' },
        { id: 11, title: 'Ready', order: 2, status: 'to_do' },
        { id: 12, title: 'Shipped', order: 3, status: 'done' },
      ],
      completedStageId: 12,
    };
    expect(stageOfStatus(custom, 'to_do', 11)).toBe(11);
    expect(stageOfStatus(custom, 'to_do')).toBe(10);
    expect(stageOfStatus(custom, 'done', 11)).toBe(12);
    // A status with no stage of its own falls back to the first stage.
    expect(stageOfStatus(custom, 'blocked')).toBe(10);
  });
});

describe('exactly one parent', () => {
  const fields = Object.keys(TASK_PARENT_FIELDS) as (keyof typeof TASK_PARENT_FIELDS)[];
  const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
  const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';
  const none = {
    project: null,
    customObjectRecord: null,
    company: null,
    personRef: null,
    leadRef: null,
    dealRef: null,
  };

  it('create: one parent is taken, the others are null', () => {
    expect(resolveParent(fields, null, { leadRef: A })).toEqual({ field: 'leadRef', values: { ...none, leadRef: A } });
  });

  it.each([
    [{}, /exactly one parent is required/],
    [{ company: null }, /exactly one parent is required/],
    [{ company: '' }, /exactly one parent is required/],
    [{ company: A, dealRef: B }, /exactly one parent is allowed, got company and dealRef/],
  ])('create with %j is refused', (input, message) => {
    expect(() => resolveParent(fields, null, input)).toThrow(message);
  });

  it('update: no parent field keeps the parent; one moves it; clearing it alone is refused', () => {
    const current = { ...none, company: A };
    expect(resolveParent(fields, current, {}).values).toEqual(current);
    expect(resolveParent(fields, current, { personRef: null }).values).toEqual(current);
    expect(resolveParent(fields, current, { dealRef: B }).values).toEqual({ ...none, dealRef: B });
    expect(resolveParent(fields, current, { company: null, dealRef: B }).values).toEqual({ ...none, dealRef: B });
    expect(() => resolveParent(fields, current, { company: null })).toThrow(/exactly one parent is required/);
    expect(() => resolveParent(fields, current, { personRef: A, leadRef: B })).toThrow(/exactly one parent is allowed/);
  });
});
