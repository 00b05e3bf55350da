import type { Ctx } from '../../../platform/context';
import { deleteWithEvent, emitUpdate, updateWithEvent, type Changes } from '../../../platform/shared/changes';

// domain/shared/changes.ts: the update and delete tails every record service shares (event, stamp, flush).
interface Row {
  _id: string;
  name: string;
  tags: string[];
  updatedAt: Date;
}

/** An entity manager that records what a tail does, in order: created outbox rows, removes and flushes. */
function recordingCtx() {
  const writes: (string | Record<string, unknown>)[] = [];
  const em = {
    create: (_entity: unknown, data: Record<string, unknown>) => data,
    persist: (row: Record<string, unknown>) => void writes.push(row),
    remove: (row: Row) => void writes.push(`remove ${row._id}`),
    flush: async () => void writes.push('flush'),
  };
  const ctx = { em, actor: { workspaceId: 'w1', userId: 'u1', role: 'owner', scopes: [] } } as unknown as Ctx;
  const events = () => writes.filter((w): w is Record<string, unknown> => typeof w === 'object');
  return { ctx, writes, events };
}

const row = (): Row => ({ _id: 'r1', name: 'Old', tags: ['a'], updatedAt: new Date('2026-01-01T00:00:00Z') });
const event = (r: Row) =>
  ({
    type: 'company_updated',
    entityType: 'company',
    payload: (changes: Changes) => ({ company: { ...r, updatedAt: r.updatedAt.toISOString() }, changes }),
  }) as const;

describe('updateWithEvent', () => {
  it('applies the patch, stamps updatedAt, emits the view after the stamp with the changes, then flushes', async () => {
    const { ctx, writes, events } = recordingCtx();
    const r = row();
    const changes = await updateWithEvent(ctx, r, { name: 'New', tags: ['a'] }, event(r));
    expect(changes).toEqual({ name: { from: 'Old', to: 'New' } });
    expect(r.name).toBe('New');
    expect(r.updatedAt.getTime()).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
    const [sent] = events();
    expect(sent).toMatchObject({ type: 'company_updated', entityType: 'company', entityId: 'r1', workspaceId: 'w1' });
    expect(sent!.payload).toEqual({ company: { ...r, updatedAt: r.updatedAt.toISOString() }, changes });
    expect(writes.at(-1)).toBe('flush');
  });

  it('writes nothing when nothing changed (no stamp, no event, no flush) and answers null', async () => {
    const { ctx, writes } = recordingCtx();
    const r = row();
    const before = r.updatedAt;
    expect(await updateWithEvent(ctx, r, { name: 'Old', tags: ['a'] }, event(r))).toBeNull();
    expect(r.updatedAt).toBe(before);
    expect(writes).toEqual([]);
  });

  it('names another entity when told, runs `also` after the event and before the flush; flush: false leaves it out', async () => {
    const { ctx, writes } = recordingCtx();
    const r = row();
    await updateWithEvent(
      ctx,
      r,
      { name: 'New' },
      { ...event(r), entityId: 'parent' },
      { flush: false, also: () => void writes.push('also') },
    );
    expect(writes.map((w) => (typeof w === 'string' ? w : `${w.type} ${w.entityId}`))).toEqual([
      'company_updated parent',
      'also',
    ]);
  });
});

describe('emitUpdate', () => {
  it('takes changes applied earlier (a preview in between) and tells whether it wrote', async () => {
    const { ctx, events } = recordingCtx();
    const r = row();
    expect(await emitUpdate(ctx, r, {}, event(r))).toBe(false);
    expect(await emitUpdate(ctx, r, { name: { from: 'a', to: 'b' } }, event(r))).toBe(true);
    expect(events().map((e) => (e.payload as { changes: unknown }).changes)).toEqual([
      { name: { from: 'a', to: 'b' } },
    ]);
  });
});

describe('deleteWithEvent', () => {
  it('removes the record, emits the payload given with the record id, then flushes', async () => {
    const { ctx, writes } = recordingCtx();
    const r = row();
    await deleteWithEvent(ctx, r, {
      type: 'company_deleted',
      entityType: 'company',
      payload: { company: { _id: r._id } },
    });
    expect(
      writes.map((w) => (typeof w === 'string' ? w : `${w.type} ${w.entityId} ${JSON.stringify(w.payload)}`)),
    ).toEqual(['remove r1', 'company_deleted r1 {"company":{"_id":"r1"}}', 'flush']);
  });

  it('inside a transaction (flush: false) leaves the flush to it; entityId may name another record', async () => {
    const { ctx, writes } = recordingCtx();
    await deleteWithEvent(
      ctx,
      row(),
      { type: 'company_deleted', entityType: 'flow', entityId: 'f1', payload: { company: { _id: 'f1' } } },
      {
        flush: false,
      },
    );
    expect(writes.map((w) => (typeof w === 'string' ? w : `${w.type} ${w.entityId}`))).toEqual([
      'remove r1',
      'company_deleted f1',
    ]);
  });
});
