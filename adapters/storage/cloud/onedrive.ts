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
type GraphItem = Record<string, any>;

const EXTENSION: Record<Exclude<CreateKind, 'folder' | 'file'>, string> = {
  document: '.docx',
  spreadsheet: '.xlsx',
  presentation: '.pptx',
};
const SELECT = 'id,name,size,file,folder,webUrl,lastModifiedDateTime,parentReference,root';

/** OneDrive and SharePoint document libraries through Microsoft Graph v1.0. */
export class OneDriveProvider implements CloudStorageProvider {
  readonly id = 'onedrive' as const;
  private readonly client: OAuthJsonClient;
  private readonly graph: string;

  constructor(settings: CloudEnv['onedrive'], fetch: SafeFetch, allowHosts: readonly string[]) {
    this.graph = settings.graphUrl;
    this.client = new OAuthJsonClient(
      'OneDrive',
      settings,
      {
        tokenUrl: `${settings.loginUrl}/${encodeURIComponent(settings.tenant)}/oauth2/v2.0/token`,
        scope: 'offline_access Files.ReadWrite.All User.Read',
      },
      fetch,
      allowHosts,
    );
  }

  private drive(driveId?: string | null): string {
    return driveId ? `${this.graph}/drives/${encodeURIComponent(driveId)}` : `${this.graph}/me/drive`;
  }

  async account(): Promise<CloudAccount> {
    const drive = (await this.client.request('GET', `${this.graph}/me/drive?$select=id,owner,driveType`)) ?? {};
    const user = ((drive.owner as GraphItem | undefined)?.user ?? {}) as GraphItem;
    return cloudAccount(this.id, drive.id, user);
  }

  async browse(q: BrowseQuery): Promise<CloudItem[]> {
    const top = `$top=${q.limit}`;
    let url: string;
    if (q.roots) {
      const drives = (
        await this.client.request('GET', `${this.graph}/me/drives?$select=id,name,webUrl,lastModifiedDateTime`)
      )?.value as GraphItem[] | undefined;
      return (drives ?? []).slice(0, q.limit).map((d) => ({
        ...driveItem(this.id, {
          id: String(d.id),
          driveId: String(d.id),
          name: String(d.name ?? 'Drive'),
          modifiedAt: d.lastModifiedDateTime ?? null,
          webUrl: d.webUrl ?? null,
        }),
        ...(q.withPath ? { path: '/' } : {}),
      }));
    } else if (q.recent) {
      url = `${this.graph}/me/drive/recent?${top}`;
    } else if (q.query) {
      url = `${this.drive(q.driveId)}/root/search(q='${encodeURIComponent(q.query.replace(/'/g, "''"))}')?${top}&$select=${SELECT}`;
    } else if (q.parentId) {
      url = `${this.drive(q.driveId)}/items/${encodeURIComponent(q.parentId)}/children?${top}&$select=${SELECT}`;
    } else {
      url = `${this.drive(q.driveId)}/root/children?${top}&$select=${SELECT}`;
    }
    const page = await this.client.request('GET', url);
    if (!page) throw noSuchFolder();
    return ((page.value as GraphItem[] | undefined) ?? [])
      .slice(0, q.limit)
      .map((item) => this.toItem(item, q.withPath));
  }

  async item(id: string, driveId?: string | null): Promise<CloudItem | null> {
    const item = await this.client.request(
      'GET',
      `${this.drive(driveId)}/items/${encodeURIComponent(id)}?$select=${SELECT}`,
    );
    return item ? this.toItem(item, true) : null;
  }

  async create(input: { name: string; kind: CreateKind; parentId?: string; driveId?: string }): Promise<CloudItem> {
    const parent = `${this.drive(input.driveId)}/items/${encodeURIComponent(input.parentId ?? 'root')}`;
    if (input.kind === 'folder') {
      const made = await this.client.request('POST', `${parent}/children`, {
        name: input.name,
        folder: {},
        '@microsoft.graph.conflictBehavior': 'rename',
      });
      if (!made) throw noSuchFolder();
      return this.toItem(made, true);
    }
    const ext = input.kind === 'file' ? '' : EXTENSION[input.kind];
    const name = ext && !input.name.toLowerCase().endsWith(ext) ? `${input.name}${ext}` : input.name;
    // An empty upload creates the item; Office for the web opens an empty .docx/.xlsx/.pptx as a new document.
    const made = await this.client.request(
      'PUT',
      `${parent}:/${encodeURIComponent(name)}:/content?@microsoft.graph.conflictBehavior=rename`,
      '',
    );
    if (!made) throw noSuchFolder();
    return this.toItem(made, true);
  }

  private toItem(item: GraphItem, withPath?: boolean): CloudItem {
    const parent = (item.parentReference ?? item.remoteItem?.parentReference ?? {}) as GraphItem;
    const parentPath =
      typeof parent.path === 'string'
        ? decodeURIComponent(parent.path.replace(/^\/drives?\/[^/]*\/?root:?|^\/drive\/root:?/, ''))
        : null;
    return {
      provider: this.id,
      id: String(item.id),
      driveId: parent.driveId ?? null,
      parentId: parent.id ?? null,
      name: String(item.name ?? ''),
      kind: item.folder || item.root ? 'folder' : 'file',
      mimeType: item.file?.mimeType ?? null,
      size: typeof item.size === 'number' ? item.size : null,
      modifiedAt: item.lastModifiedDateTime ?? null,
      webUrl: item.webUrl ?? null,
      ...(withPath
        ? { path: parentPath === null ? null : `${parentPath || ''}/${item.name ?? ''}`.replace(/^\/+/, '/') }
        : {}),
    };
  }
}
