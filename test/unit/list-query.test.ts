import { listQuery, project } from '../../platform/shared/list-query';

describe('listQuery', () => {
  const strict = listQuery({ strict: true, fields: ['name', 'city'] });
  const loose = listQuery({ maxLimit: 500 });

  it('applies defaults', () => {
    expect(loose.parse({})).toMatchObject({ page: 1, limit: 20, view: 'full' });
  });

  it('strict lists reject unknown parameters, naming them', () => {
    const res = strict.safeParse({ page: '1', colour: 'red' });
    expect(res.success).toBe(false);
    expect(JSON.stringify(res.error?.issues)).toContain('colour');
    expect(loose.safeParse({ colour: 'red' }).success).toBe(true);
  });

  it('maps date aliases onto dateFrom/dateTo, the canonical name winning', () => {
    const q = loose.parse({ startDate: '2024-01-01', to: '2024-02-01' });
    expect(q.dateFrom).toEqual(new Date('2024-01-01'));
    expect(q.dateTo).toEqual(new Date('2024-02-01'));
    expect(loose.parse({ dateFrom: '2024-03-01', from: '2024-01-01' }).dateFrom).toEqual(new Date('2024-03-01'));
    expect('startDate' in q).toBe(false);
  });

  it.each([
    [{ limit: '101' }, 'limit must be at most 100'],
    [{ limit: '0' }, 'limit must be at least 1'],
    [{ page: '-1' }, 'page must be at least 1'],
    [{ fields: 'name,secret' }, 'unknown field(s) secret'],
    [{ view: 'compact' }, 'view'],
    [{ updatedSince: '12/01/2024' }, 'ISO 8601'],
  ])('refuses %j', (input, message) => {
    const res = strict.safeParse(input);
    expect(res.success).toBe(false);
    expect(JSON.stringify(res.error?.issues)).toContain(message);
  });

  it('projects to fields (keeping _id) or to the summary set', () => {
    const record = { _id: 'x', name: 'n', city: 'c', zip: 'z' };
    expect(project(record, { fields: ['city'] })).toEqual({ _id: 'x', city: 'c' });
    expect(project(record, { view: 'summary', summary: ['name'] })).toEqual({ _id: 'x', name: 'n' });
    expect(project(record, { view: 'full' })).toBe(record);
  });
});
