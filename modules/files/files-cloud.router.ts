import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as cloud from './cloud.service';
import { created, paged, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import {
  cloudAccountView,
  cloudAccountsQuery,
  cloudBrowseQuery,
  cloudCreateBody,
  cloudCreateView,
  cloudItemView,
  cloudLinkBody,
  fileView,
} from './files.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Files';
const notConfigured =
  'A provider that is not set up answers 503 { error, code: "not_configured" } naming the variables to set (ONEDRIVE_*, GOOGLE_DRIVE_*); a provider that fails or refuses the stored token answers 502 upstream_failed.';

/** Cloud storage (OneDrive, Google Drive): mounted before /files/:id so the paths are not read as ids. */
export const cloudFileRoutes: RouteFactory = (deps) => [
  route({
    method: 'GET',
    path: '/api/v1/files/cloud/accounts',
    section,
    access: read,
    query: cloudAccountsQuery,
    summary:
      'Cloud storage accounts connected to the workspace (provider, accountId, displayName, email, status); no credentials. None: an empty list.',
    response: envelopes.list(cloudAccountView),
    handler: async ({ ctx, query }) => {
      const accounts = await cloud.listAccounts(ctx, deps.config);
      return paged(accounts.slice((query.page - 1) * query.limit, query.page * query.limit), {
        page: query.page,
        limit: query.limit,
        total: accounts.length,
      });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/files/cloud/browse',
    section,
    access: read,
    query: cloudBrowseQuery,
    summary:
      "Browse a connected cloud drive: roots=true lists drives; recent=true recent files; query searches names; parentId (+ driveId) lists a folder; withPath adds each item's path.",
    description: `provider (onedrive, google_drive) may be omitted when only one is connected. ${notConfigured}`,
    response: envelopes.list(cloudItemView).extend({
      hasMore: z.boolean().describe('the provider may have more items past this page'),
    }),
    errors: [502],
    handler: async ({ ctx, query }) => {
      // Providers page by cursor: read up to the requested page and answer its slice.
      const upTo = Math.min(query.page * query.limit, 1000);
      const items = await cloud.browse(ctx, deps.config, { ...query, limit: upTo });
      const slice = items.slice((query.page - 1) * query.limit, query.page * query.limit);
      return paged(slice, { page: query.page, limit: query.limit, total: items.length, hasMore: items.length >= upTo });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/files/cloud/link',
    section,
    access: write,
    body: cloudLinkBody,
    successStatus: 201,
    summary:
      'Record a cloud file (itemId, optional provider, driveId, folderId) as a file of the workspace, optionally linked to a record (entityType, entityId).',
    description: notConfigured,
    response: envelopes.data(fileView),
    errors: [502],
    handler: async ({ ctx, body }) => created(await cloud.linkCloudItem(ctx, deps.config, body)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/files/cloud/create',
    section,
    access: write,
    body: cloudCreateBody,
    successStatus: 201,
    summary:
      'Create a folder or an empty document, spreadsheet, presentation or file in a cloud drive; documents are recorded (and optionally linked) as files. Answers { item, file }.',
    description: notConfigured,
    response: envelopes.data(cloudCreateView),
    errors: [502],
    handler: async ({ ctx, body }) => created(await cloud.createCloudItem(ctx, deps.config, body)),
  }),
];
