import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role, Scope } from '../../platform/context';
import { validation } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { parseRole, parseScopes, revokeApiKey } from './api-keys.service';
import { createUser } from './workspaces.service';

// Operator actions (the `crm` CLI): they run outside any request, so `em` is a plain global
// fork and each function binds the workspace itself where tenant rows are touched.
// Parsing is pure so that callers can reject bad input before opening a database connection.

/** A malformed id is a validation error (never a database error or a silent "not found"). */
export function parseId(value: string, what: string): string {
  const id = value.trim();
  if (!isId(id)) throw validation(`invalid ${what} id "${value}": expected 24 lowercase hexadecimal characters`);
  return id;
}

/** `read,write` → ['read', 'write']; blanks are ignored, unknown scopes rejected. */
export function parseScopeList(csv: string): Scope[] {
  return parseScopes(
    csv
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

function optionalText(value: string | undefined, what: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!text) throw validation(`${what} must not be empty`);
  if (text.length > max) throw validation(`${what} must be at most ${max} characters`);
  return text;
}

export interface OperatorKeyInput {
  workspaceId: string;
  scopes: Scope[];
  role: Role;
  name?: string;
}

export function parseKeyInput(raw: {
  workspace: string;
  scopes: string;
  role: string;
  name?: string;
}): OperatorKeyInput {
  return {
    workspaceId: parseId(raw.workspace, 'workspace'),
    scopes: parseScopeList(raw.scopes),
    role: parseRole(raw.role),
    name: optionalText(raw.name, 'key name', 200),
  };
}

export async function revokeOperatorKey(
  em: EntityManager,
  keyId: string,
): Promise<{ id: string; revoked: true; revokedAt: string }> {
  const revoked = await revokeApiKey(em, keyId);
  return { id: revoked.id, revoked: true, revokedAt: revoked.revokedAt };
}

export interface OperatorUserInput {
  workspaceId: string;
  email: string;
  firstName: string;
  lastName?: string;
  role: Role;
}

/** Shape and length checks; the e-mail format and uniqueness are checked by createUser. */
export function parseUserInput(raw: {
  workspace: string;
  email: string;
  firstName: string;
  lastName?: string;
  role: string;
}): OperatorUserInput {
  const email = raw.email.trim();
  if (email.length > 320) throw validation('e-mail address must be at most 320 characters');
  const firstName = optionalText(raw.firstName, 'first name', 200) as string;
  return {
    workspaceId: parseId(raw.workspace, 'workspace'),
    email,
    firstName,
    lastName: optionalText(raw.lastName, 'last name', 200),
    role: parseRole(raw.role),
  };
}

export async function createOperatorUser(
  em: EntityManager,
  input: OperatorUserInput,
): Promise<{ id: string; email: string; role: Role; workspaceId: string }> {
  const user = await createUser(forkForWorkspace(em, input.workspaceId), input);
  return { ...user, workspaceId: input.workspaceId };
}
