import type { SafeFetch } from '../../../platform/net/safe-fetch';
import type {
  BrowseQuery,
  CloudAccount,
  CloudItem,
  CloudStorageProvider,
  CreateKind,
  CloudEnv,
} from '../../../platform/ports/cloud-provider.port';
import { cloudAccount, driveItem, noSuchFolder } from './cloud-items';
import { OAuthJsonClient } from './oauth-client';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider JSON, every field read defensively
type DriveFile = Record<string, any>;

const FOLDER = 'application/vnd.google-apps.folder';
const KIND_MIME: Record<CreateKind, string> = {
  folder: FOLDER,
  document: 'application/vnd.google-apps.document',
  spreadsheet: 'application/vnd.google-apps.spreadsheet',
  presentation: 'application/vnd.google-apps.presentation',
  file: 'text/plain',
};
const FIELDS = 'id,name,mimeType,size,modifiedTime,webViewLink,parents,driveId';
const ALL_DRIVES = 'supportsAllDrives=true&includeItemsFromAllDrives=true';
const quote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Google Drive (My Drive and shared drives) through the Drive REST API v3. */
export class GoogleDriveProvider implements CloudStorageProvider {
  readonly id = 'google_drive' as const;
  private readonly client: OAuthJsonClient;
  private readonly api: string;

  constructor(settings: CloudEnv['googleDrive'], fetch: SafeFetch, allowHosts: readonly string[]) {
    this.api = settings.apiUrl;
    this.client = new OAuthJsonClient('Google Drive', settings, { tokenUrl: settings.tokenUrl }, fetch, allowHosts);
  }

  async account(): Promise<CloudAccount> {
    const about =
      (await this.client.request('GET', `${this.api}/about?fields=user(displayName,emailAddress,permissionId)`)) ?? {};
    const user = (about.user ?? {}) as DriveFile;
    return cloudAccount(this.id, user.permissionId, { displayName: user.displayName, email: user.emailAddress });
  }

  async browse(q: BrowseQuery): Promise<CloudItem[]> {
    if (q.roots) {
      const shared = (await this.client.request('GET', `${this.api}/drives?pageSize=${Math.min(q.limit, 100)}`))
        ?.drives as DriveFile[] | undefined;
      const roots: CloudItem[] = [
        driveItem(this.id, {
          id: 'root',
          driveId: null,
          name: 'My Drive',
          modifiedAt: null,
          webUrl: 'https://drive.google.com/drive/my-drive',
        }),
        ...(shared ?? []).map((d) =>
          driveItem(this.id, {
            id: String(d.id),
            driveId: String(d.id),
            name: String(d.name ?? ''),
            modifiedAt: null,
            webUrl: null,
          }),
        ),
      ];
      return roots.slice(0, q.limit).map((r) => (q.withPath ? { ...r, path: '/' } : r));
    }
    const where = ['trashed = false'];
    if (q.query) where.push(`name contains ${quote(q.query)}`);
    else if (!q.recent) where.push(`${quote(q.parentId ?? q.driveId ?? 'root')} in parents`);
    const corpora = q.driveId ? `&corpora=drive&driveId=${encodeURIComponent(q.driveId)}` : '';
    const order = q.recent ? '&orderBy=viewedByMeTime desc' : '&orderBy=folder,name';
    const url = `${this.api}/files?q=${encodeURIComponent(where.join(' and '))}&pageSize=${q.limit}&fields=${encodeURIComponent(`files(${FIELDS})`)}${corpora}${order.replace(/ /g, '%20')}&${ALL_DRIVES}`;
    const page = await this.client.request('GET', url);
    if (!page) throw noSuchFolder();
    const items = ((page.files as DriveFile[] | undefined) ?? []).slice(0, q.limit).map((f) => this.toItem(f));
    if (q.withPath) for (const item of items) item.path = await this.pathOf(item);
    return items;
  }

  async item(id: string): Promise<CloudItem | null> {
    const file = await this.client.request(
      'GET',
      `${this.api}/files/${encodeURIComponent(id)}?fields=${encodeURIComponent(FIELDS)}&supportsAllDrives=true`,
    );
    if (!file) return null;
    const item = this.toItem(file);
    item.path = await this.pathOf(item);
    return item;
  }

  async create(input: { name: string; kind: CreateKind; parentId?: string; driveId?: string }): Promise<CloudItem> {
    const made = await this.client.request(
      'POST',
      `${this.api}/files?fields=${encodeURIComponent(FIELDS)}&supportsAllDrives=true`,
      {
        name: input.name,
        mimeType: KIND_MIME[input.kind],
        parents: [input.parentId ?? input.driveId ?? 'root'],
      },
    );
    if (!made) throw noSuchFolder();
    const item = this.toItem(made);
    // Same shape as item(): a later sync compares paths.
    item.path = await this.pathOf(item);
    return item;
  }

  /** Walks up the parents (at most 10 levels): Drive has no path field. */
  private async pathOf(item: CloudItem): Promise<string> {
    const names = [item.name];
    let parent = item.parentId;
    for (let depth = 0; parent && depth < 10; depth++) {
      const up = await this.client.request(
        'GET',
        `${this.api}/files/${encodeURIComponent(parent)}?fields=id,name,parents&supportsAllDrives=true`,
      );
      if (!up || !Array.isArray(up.parents) || !up.parents.length) break;
      names.unshift(String(up.name ?? ''));
      parent = String(up.parents[0]);
    }
    return `/${names.join('/')}`;
  }

  private toItem(file: DriveFile): CloudItem {
    const folder = file.mimeType === FOLDER;
    return {
      provider: this.id,
      id: String(file.id),
      driveId: file.driveId ?? null,
      parentId: Array.isArray(file.parents) ? (file.parents[0] ?? null) : null,
      name: String(file.name ?? ''),
      kind: folder ? 'folder' : 'file',
      mimeType: folder ? null : (file.mimeType ?? null),
      size: file.size !== undefined ? Number(file.size) : null,
      modifiedAt: file.modifiedTime ?? null,
      webUrl: file.webViewLink ?? null,
    };
  }
}
