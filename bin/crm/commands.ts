import { ROLES, SCOPES } from '../../platform/context';
import {
  createApiKey,
  createOperatorUser,
  parseId,
  parseKeyInput,
  parseUserInput,
  revokeOperatorKey,
  createWorkspace,
  setWorkspaceStatus,
} from '../../modules/workspaces';
import type { CommandSpec, Flag } from './command-spec';
import { searchReindexCommand } from './search';
import { emailAccountCommands } from './email-accounts';
import { outboxCommands } from './outbox';
import { retentionCommand } from './retention';

export type { CommandOutput, CommandSpec, Flag, Runner, RunnerIo } from './command-spec';

const SHOWN_ONCE = 'Store this API key now: it is shown only once and cannot be retrieved later.';

const workspaceFlag: Flag = {
  name: 'workspace',
  value: '<id>',
  required: true,
  description: 'workspace id (24 hex characters)',
};
const roleFlag: Flag = { name: 'role', value: '<role>', required: true, description: ROLES.join('|') };

function statusCommand(name: 'suspend' | 'resume', status: 'suspended' | 'active', summary: string): CommandSpec {
  return {
    name: `workspace ${name}`,
    summary,
    flags: [workspaceFlag],
    prepare(values) {
      const workspaceId = parseId(values.workspace as string, 'workspace');
      return async (em) => {
        const result = await setWorkspaceStatus(em, workspaceId, status);
        return { result: { ...result }, human: `Workspace ${result.workspaceId} is now ${result.status}.` };
      };
    },
  };
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'workspace create',
    summary: 'Create a workspace, its owner user and an owner API key with every scope',
    flags: [{ name: 'name', value: '<name>', required: true, description: 'workspace name (1-200 characters)' }],
    prepare(values) {
      const name = values.name as string;
      return async (em) => {
        const created = await createWorkspace(em, { name });
        return {
          result: { workspaceId: created.workspaceId, userId: created.userId, apiKey: created.apiKey },
          human: [
            `Workspace created: ${created.workspaceId}`,
            `Owner user:        ${created.userId}`,
            `Owner API key (role owner, scopes ${SCOPES.join(',')}):`,
            `  ${created.apiKey}`,
            SHOWN_ONCE,
          ].join('\n'),
        };
      };
    },
  },
  statusCommand('suspend', 'suspended', 'Suspend a workspace: its API keys stop authenticating (403)'),
  statusCommand('resume', 'active', 'Reactivate a suspended workspace'),
  retentionCommand,
  {
    name: 'key create',
    summary: 'Create an API key for a workspace (attached to its first owner user)',
    flags: [
      workspaceFlag,
      { name: 'scopes', value: '<list>', required: true, description: `comma-separated: ${SCOPES.join(',')}` },
      roleFlag,
      { name: 'name', value: '<name>', required: false, description: 'label shown in key listings' },
    ],
    prepare(values) {
      const input = parseKeyInput({
        workspace: values.workspace as string,
        scopes: values.scopes as string,
        role: values.role as string,
        name: values.name,
      });
      return async (em) => {
        const key = await createApiKey(em, input);
        return {
          result: { id: key.id, apiKey: key.apiKey, prefix: key.prefix },
          human: [
            `API key created: ${key.id} (prefix ${key.prefix}, role ${input.role}, scopes ${input.scopes.join(',')})`,
            `  ${key.apiKey}`,
            SHOWN_ONCE,
          ].join('\n'),
        };
      };
    },
  },
  {
    name: 'key revoke',
    summary: 'Revoke an API key (idempotent: revoking again keeps the first revocation time)',
    flags: [{ name: 'id', value: '<keyId>', required: true, description: 'API key id (24 hex characters)' }],
    prepare(values) {
      const keyId = parseId(values.id as string, 'api key');
      return async (em) => {
        const revoked = await revokeOperatorKey(em, keyId);
        return { result: { ...revoked }, human: `API key ${revoked.id} revoked at ${revoked.revokedAt}.` };
      };
    },
  },
  {
    name: 'user create',
    summary: 'Add a user to a workspace',
    flags: [
      workspaceFlag,
      { name: 'email', value: '<email>', required: true, description: 'unique within the workspace' },
      { name: 'first-name', value: '<name>', required: true, description: 'first name' },
      roleFlag,
      { name: 'last-name', value: '<name>', required: false, description: 'last name' },
    ],
    prepare(values) {
      const input = parseUserInput({
        workspace: values.workspace as string,
        email: values.email as string,
        firstName: values['first-name'] as string,
        lastName: values['last-name'],
        role: values.role as string,
      });
      return async (em) => {
        const user = await createOperatorUser(em, input);
        return {
          result: { ...user },
          human: `User created: ${user.id} <${user.email}> (role ${user.role}) in workspace ${user.workspaceId}.`,
        };
      };
    },
  },
  searchReindexCommand,
  ...emailAccountCommands,
  ...outboxCommands,
];
