import type { Ctx } from '../../platform/context';
import { forbidden } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { newId } from '../../platform/ids';
import { FREE_MAIL_DOMAINS, WEBSITE_DOMAIN_SQL } from '../../platform/shared/normalize';
import type { PageRequest } from '../../platform/shared/listing';
import { ExtensionContribution, ExtensionObservation } from './extension.entity';
import type { ObservationInput } from './extension.schemas';
import type { ContributionView, KnownDomainView, NetworkProfileView, ObservationsResultView } from './extension.views';

export async function getContribution(ctx: Ctx): Promise<ContributionView> {
  const row = await ctx.em.findOne(ExtensionContribution, { workspaceId: ctx.actor.workspaceId });
  const observations = await ctx.em.count(ExtensionObservation, { workspaceId: ctx.actor.workspaceId });
  return {
    enabled: row?.enabled ?? false,
    changedAt: row?.updatedAt.toISOString() ?? null,
    changedBy: row?.changedBy ?? null,
    observations,
  };
}

export async function setContribution(ctx: Ctx, enabled: boolean): Promise<ContributionView> {
  const ws = ctx.actor.workspaceId;
  // One row per workspace; concurrent first writes meet in the unique index and the last one wins.
  await ctx.em.execute(
    `insert into extension_contribution (id, workspace_id, created_at, updated_at, enabled, changed_by) values (?, ?, now(), now(), ?, ?)
     on conflict (workspace_id) do update set enabled = excluded.enabled, changed_by = excluded.changed_by, updated_at = now()`,
    [newId(), ws, enabled, ctx.actor.userId],
  );
  emit(ctx, { type: 'extension_contribution_changed', entityType: 'workspace', entityId: ws, payload: { enabled } });
  await ctx.em.flush();
  ctx.em.clear();
  return getContribution(ctx);
}

const isContributing = async (ctx: Ctx): Promise<boolean> =>
  (await ctx.em.findOne(ExtensionContribution, { workspaceId: ctx.actor.workspaceId }))?.enabled ?? false;

/**
 * Stores the observations (one row per workspace and profile; a newer observation replaces the
 * facts of an older one). They are shared with the network only while the workspace contributes.
 */
export async function addObservations(ctx: Ctx, items: ObservationInput[]): Promise<ObservationsResultView> {
  // The last observation of a profile within one request wins.
  const byProfile = new Map(items.map((o) => [o.profileUrl, o]));
  const rows = [...byProfile.values()];
  const params: unknown[] = [];
  const values = rows.map((o) => {
    params.push(newId(), ctx.actor.workspaceId, o.kind, o.profileUrl, o.handle, JSON.stringify(o.facts), o.observedAt);
    return '(?, ?, now(), now(), ?, ?, ?, ?::jsonb, ?)';
  });
  await ctx.em.execute(
    `insert into extension_observation (id, workspace_id, created_at, updated_at, kind, profile_url, handle, facts, observed_at) values ${values.join(', ')}
     on conflict (workspace_id, profile_url) do update set kind = excluded.kind, handle = excluded.handle, facts = excluded.facts, observed_at = excluded.observed_at, updated_at = now()
     where extension_observation.observed_at <= excluded.observed_at`,
    params,
  );
  return { received: items.length, stored: rows.length, shared: await isContributing(ctx) };
}

/** A profile as the contributor network shows it (facts: the newest value of each across contributing workspaces). */
export type NetworkProfile = NetworkProfileView;

/**
 * What contributing workspaces observed about a profile. Only for contributing workspaces; the
 * answer holds public-profile facts only, never a workspace id or any workspace's CRM records.
 */
export async function networkLookup(
  ctx: Ctx,
  q: { profileUrl: string | null; handle: string | null } & PageRequest,
): Promise<{ items: NetworkProfile[]; total: number }> {
  if (!(await isContributing(ctx))) {
    throw forbidden(
      'the contributor network is only open to workspaces that contribute; an admin can enable it with PUT /api/v1/extension/contribution',
    );
  }
  const em = ctx.em.fork({ clear: true });
  // The one cross-workspace read of this module: observations of contributing workspaces only.
  const observations = await em.find(
    ExtensionObservation,
    {
      $or: [...(q.profileUrl ? [{ profileUrl: q.profileUrl }] : []), ...(q.handle ? [{ handle: q.handle }] : [])],
      workspaceId: {
        $in: (await em.find(ExtensionContribution, { enabled: true }, { filters: false, fields: ['workspaceId'] })).map(
          (c) => c.workspaceId,
        ),
      },
    },
    { filters: false, orderBy: { observedAt: 'asc', _id: 'asc' }, limit: 5000 },
  );
  const grouped = new Map<string, NetworkProfile>();
  for (const o of observations) {
    const entry = grouped.get(o.profileUrl);
    if (!entry) {
      grouped.set(o.profileUrl, {
        profileUrl: o.profileUrl,
        handle: o.handle,
        kind: o.kind,
        facts: { ...o.facts },
        contributors: 1,
        firstObservedAt: o.observedAt.toISOString(),
        lastObservedAt: o.observedAt.toISOString(),
      });
      continue;
    }
    Object.assign(entry.facts, o.facts);
    entry.kind = o.kind;
    entry.contributors += 1;
    entry.lastObservedAt = o.observedAt.toISOString();
  }
  const all = [...grouped.values()].sort(
    (a, b) => b.lastObservedAt.localeCompare(a.lastObservedAt) || a.profileUrl.localeCompare(b.profileUrl),
  );
  return { items: all.slice((q.page - 1) * q.limit, q.page * q.limit), total: all.length };
}

/**
 * The workspace's known company domains (website, else e-mail domain; free-mail domains left out), for highlighting in
 * the extension.
 */
export async function knownDomains(ctx: Ctx, page: PageRequest): Promise<{ items: KnownDomainView[]; total: number }> {
  const free = [...FREE_MAIL_DOMAINS];
  const base = `
    with d as (
      select ${WEBSITE_DOMAIN_SQL('c')} as domain, c.id from company c where c.workspace_id = ? and c.website is not null
      union all
      select split_part(lower(c.email), '@', 2), c.id from company c where c.workspace_id = ? and c.email like '%@%'
    ), g as (
      select domain, array_agg(distinct id order by id) as ids from d
      where domain ~ '^[a-z0-9-]+(\\.[a-z0-9-]+)+$' and domain <> all(string_to_array(?, ',')) group by domain
    )`;
  const ws = ctx.actor.workspaceId;
  const [count] = await ctx.em.execute<{ total: string }[]>(`${base} select count(*) as total from g`, [
    ws,
    ws,
    free.join(','),
  ]);
  const rows = await ctx.em.execute<{ domain: string; ids: string[] }[]>(
    `${base} select domain, ids from g order by domain limit ? offset ?`,
    [ws, ws, free.join(','), page.limit, (page.page - 1) * page.limit],
  );
  return {
    items: rows.map((r) => ({ domain: r.domain, companyIds: r.ids.slice(0, 20) })),
    total: Number(count?.total ?? 0),
  };
}
