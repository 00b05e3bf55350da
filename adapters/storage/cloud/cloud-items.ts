import { validation, type DomainError } from '../../../platform/errors';
import type { CloudAccount, CloudItem, CloudProviderId } from '../../../platform/ports/cloud-provider.port';

/** The 400 when the provider does not find the folder (or drive) to list or create in. */
export const noSuchFolder = (): DomainError =>
  validation('parentId: no such folder in the drive', [{ path: 'parentId', error: 'not found at the provider' }]);

/** A drive as a browse root: a folder-like item with no parent, type or size. */
export function driveItem(
  provider: CloudProviderId,
  drive: Pick<CloudItem, 'id' | 'driveId' | 'name' | 'modifiedAt' | 'webUrl'>,
): CloudItem {
  return {
    provider,
    id: drive.id,
    driveId: drive.driveId,
    parentId: null,
    name: drive.name,
    kind: 'drive',
    mimeType: null,
    size: null,
    modifiedAt: drive.modifiedAt,
    webUrl: drive.webUrl,
  };
}

/** The connected account from the provider's JSON: a missing id is '', a missing name or e-mail null. */
export function cloudAccount(
  provider: CloudProviderId,
  accountId: unknown,
  user: { displayName?: string | null; email?: string | null },
): CloudAccount {
  return {
    provider,
    accountId: String(accountId ?? ''),
    displayName: user.displayName ?? null,
    email: user.email ?? null,
  };
}
