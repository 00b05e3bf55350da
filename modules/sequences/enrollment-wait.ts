/**
 * GET /sequences/enrollments/:id: a running enrollment's wait, read from its workflow (waitQuery in
 * sequence-enrollment.messages.ts: the run's own state, not a guess from the row) within a short
 * deadline. A query needs a worker: when none answers in time (worker down, engine slow) the answer
 * is the stored row (enrollment.waitReason / nextActionAt / pausedUntil), marked `source: 'stored'`.
 */
import type { Ctx } from '../../platform/context';
import type { SequenceWorkflowPort } from './ports';
import { readEnrollment } from './runs';
import type { EnrollmentDetailView } from './sequences.views';

/** How long the API waits for the workflow's answer before it falls back to the stored row. */
export const WAIT_QUERY_DEADLINE_MS = 1500;

export async function readEnrollmentWithWait(
  ctx: Ctx,
  workflows: SequenceWorkflowPort | undefined,
  id: string,
  deadlineMs = WAIT_QUERY_DEADLINE_MS,
): Promise<EnrollmentDetailView> {
  const detail = await readEnrollment(ctx, id);
  if (!detail.wait || !workflows) return detail;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), deadlineMs);
  });
  const asked = workflows.wait(detail.workflowId).catch(() => null);
  try {
    const live = await Promise.race([asked, timeout]);
    if (!live || live.status === 'completed' || live.status === 'exited') return detail;
    return {
      ...detail,
      wait: {
        source: 'workflow',
        waitingFor: live.waitingFor,
        waitReason: live.waitReason,
        nextActionAt: live.nextActionAt,
        nodeId: live.nodeId,
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
