import { z } from 'zod';
import type { AppDeps, RouteFactory } from '../../platform/http/app-deps';
import * as files from './files.service';
import * as folders from './folders.service';
import { contentDisposition } from '../../platform/shared/content-disposition';
import { ACTIVE_CONTENT_TYPES } from './sniff';
import { LOCAL_DOWNLOAD_PATH, LOCAL_UPLOAD_PATH } from '../../platform/ports/storage.port';
import { receiveSignedUpload } from './captures.service';
import type { StagedUpload } from './receive-upload';
import { fileDeps, fileStorageFor, localStorageFor } from './storage-factory';
import { parseBody } from '../../platform/http/parse-body';
import { acknowledged, created, ok, pageOf, route, type Reply } from '../../platform/http/registry';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { idParams } from '../../platform/shared/schemas';
import { cloudFileRoutes } from './files-cloud.router';
import {
  createFolderBody,
  fileLinkBody,
  fileView,
  fileWithUrlView,
  folderView,
  listFilesQuery,
  listFoldersQuery,
  signedUploadView,
} from './files.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Files';

/** POST (link) or DELETE (unlink) /files/:id/link: the body names the record; answers the file. */
const linkRoute = (method: 'POST' | 'DELETE', change: typeof files.linkFile, summary: string) =>
  route({
    method,
    path: '/api/v1/files/:id/link',
    section,
    access: write,
    params: idParams,
    body: fileLinkBody,
    rawBody: true,
    resources: { id: 'file' },
    summary,
    response: envelopes.data(fileView),
    handler: async ({ ctx, params, koa }) => {
      // The body is checked after the file is found, so another workspace's file id is 404 whatever the body.
      await files.loadFile(ctx, params.id);
      return ok(await change(ctx, params.id, parseBody(fileLinkBody, koa.request.body)));
    },
  });

const tokenParams = z.object({ token: z.string() });

const gone = (status: 403 | 404 | 410, error: string, code: string): Reply => ({ status, body: { error, code } });

/** Serves a local-driver object for a valid, unexpired token: 403 tampered, 410 expired, 404 gone. */
async function download(deps: AppDeps, token: string): Promise<Reply> {
  const storage = localStorageFor(deps.config);
  if (!storage) return gone(404, 'download URLs of this server come from the configured object store', 'not_found');
  const check = storage.signer.verify(token, 'get');
  if (!check.ok)
    return check.reason === 'expired'
      ? gone(410, 'this download URL has expired; fetch the file again for a fresh one', 'expired')
      : gone(403, 'invalid download URL', 'forbidden');
  const object = await storage.open(check.payload.key);
  if (!object) return gone(404, 'file not found', 'not_found');
  const type = check.payload.type ?? 'application/octet-stream';
  return {
    status: 200,
    body: object.stream,
    headers: {
      'Content-Type': ACTIVE_CONTENT_TYPES.has(type) ? 'application/octet-stream' : type,
      'Content-Length': String(object.size),
      'Content-Disposition': contentDisposition(check.payload.name ?? 'file'),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    },
  };
}

export const filesRoutes: RouteFactory = (deps) => [
  // Before /files/:id: the cloud paths would otherwise match as an id.
  ...cloudFileRoutes(deps),
  route({
    method: 'GET',
    path: '/api/v1/files',
    section,
    access: read,
    query: listFilesQuery,
    summary:
      'List files (newest first); filters folderId (or "root"), q (name contains), source, entityType + entityId (files linked to a record).',
    response: envelopes.list(fileView),
    handler: async ({ ctx, query }) => pageOf(await files.listFiles(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/files',
    section,
    access: write,
    successStatus: 201,
    summary:
      'Upload a file: multipart/form-data with the file in a part named "file" and optional fields folderId and name.',
    description:
      'Streamed to the configured storage (local disk or S3). Over FILE_MAX_BYTES (default 25 MiB) is 413; the content type is sniffed from the bytes, ' +
      'the declared one is ignored; the name is sanitised; the SHA-256 is recorded. An aborted upload leaves nothing behind.',
    // Staged before the Idempotency-Key claim, so the key's request hash covers the content.
    prepareBody: async (koa) => {
      const staged = await files.stageUpload(fileDeps(deps), { headers: koa.req.headers, stream: koa.req });
      koa.state.stagedUpload = staged;
      return { summary: files.uploadSummary(staged), dispose: () => staged.discard() };
    },
    response: envelopes.data(fileView),
    handler: async ({ ctx, koa }) =>
      created(await files.storeUpload(ctx, fileDeps(deps), koa.state.stagedUpload as StagedUpload)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/files/:id',
    section,
    access: read,
    params: idParams,
    resources: { id: 'file' },
    summary:
      'Get one file with a signed downloadUrl that expires at downloadUrlExpiresAt (FILE_URL_TTL_SECONDS, default 15 minutes).',
    response: envelopes.data(fileWithUrlView),
    handler: async ({ ctx, params }) => ok(await files.getFile(ctx, fileDeps(deps), params.id)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/files/:id',
    section,
    access: write,
    params: idParams,
    resources: { id: 'file' },
    summary: 'Delete a file: the stored object, the record and its links.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await files.deleteFile(ctx, fileDeps(deps), params.id);
      return acknowledged();
    },
  }),
  linkRoute(
    'POST',
    files.linkFile,
    "Link the file to a record (entityType company, person, lead, deal, project or custom_object_record; entityId must exist); shown on the record's activity feed. Already linked is 409.",
  ),
  linkRoute(
    'DELETE',
    files.unlinkFile,
    'Unlink the file from a record (body entityType, entityId); 404 when not linked.',
  ),
  publicRoute({
    method: 'GET',
    path: `${LOCAL_DOWNLOAD_PATH}/:token`,
    section,
    reason:
      'signed download URLs are opened by browsers without credentials; the HMAC-signed, expiring token is the capability',
    params: tokenParams,
    summary:
      'The bytes of a file behind a signed download URL (local storage); 403 when the token is altered, 410 when it has expired.',
    response: {
      media: ['*/*'],
      description:
        "the file's bytes with its recorded content type (active types such as HTML or SVG as application/octet-stream), as an attachment",
      headers: ['Content-Disposition', 'Cache-Control'],
    },
    errors: [403, 410],
    handler: async ({ params }) => download(deps, params.token),
  }),
  publicRoute({
    method: 'PUT',
    path: `${LOCAL_UPLOAD_PATH}/:token`,
    section,
    reason:
      'presigned upload URLs (extension captures) are used without credentials; the HMAC-signed, expiring token is the capability',
    summary:
      'Upload the bytes behind a signed upload URL (local storage): Content-Type must be the signed type; 403 altered, 410 expired, 413 over FILE_MAX_BYTES.',
    response: signedUploadView,
    errors: [403, 410],
    handler: async ({ koa }) => {
      const storage = localStorageFor(deps.config);
      if (!storage) return gone(404, 'upload URLs of this server come from the configured object store', 'not_found');
      return receiveSignedUpload(storage, deps.config.files.maxBytes, String(koa.params.token ?? ''), {
        contentType: koa.get('content-type'),
        stream: koa.req,
      });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/folders',
    section,
    access: read,
    query: listFoldersQuery,
    summary: 'List folders by name with fileCount and folderCount; parentId (a folder id or "root") lists one level.',
    response: envelopes.list(folderView),
    handler: async ({ ctx, query }) => pageOf(await folders.listFolders(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/folders',
    section,
    access: write,
    body: createFolderBody,
    successStatus: 201,
    summary: 'Create a folder (name, optional parentId); sibling names are unique case-insensitively (409).',
    response: envelopes.data(folderView),
    handler: async ({ ctx, body }) => created(await folders.createFolder(ctx, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/folders/:id',
    section,
    access: write,
    params: idParams,
    resources: { id: 'folder' },
    summary: 'Delete an empty folder; a folder that still holds files or folders is 409.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await folders.deleteFolder(ctx, params.id);
      return acknowledged();
    },
  }),
];
