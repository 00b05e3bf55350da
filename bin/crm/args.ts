import { parseArgs } from 'node:util';
import { ROLES, SCOPES } from '../../platform/context';
import { COMMANDS, type CommandSpec } from './commands';

/** Bad command line (unknown command or flag, missing flag): exit code 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

export type ParsedCommandLine =
  { kind: 'help' } | { kind: 'run'; command: CommandSpec; values: Record<string, string | undefined> };

function flagUsage(command: CommandSpec): string {
  return command.flags.map((f) => (f.required ? `--${f.name} ${f.value}` : `[--${f.name} ${f.value}]`)).join(' ');
}

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = [
    'Usage: npm run -s crm -- <command> [flags] [--json]',
    '',
    'Operator commands for the CRM API (workspaces, users, API keys, search indexes).',
    '',
    'Commands:',
    ...COMMANDS.flatMap((c) => [`  ${c.name.padEnd(width)}  ${flagUsage(c)}`, `  ${''.padEnd(width)}    ${c.summary}`]),
    `  ${'help'.padEnd(width)}  show this help (also --help, -h)`,
    '',
    'Flags:',
    '  --json      print the result as one JSON object on the last line of stdout',
    '              (on failure: {"error": "...", "code": "..."}); messages go to stderr',
    '',
    `Scopes: ${SCOPES.join(', ')}`,
    `Roles:  ${ROLES.join(', ')}`,
    'Ids are 24 lowercase hexadecimal characters.',
    '',
    'Environment: DATABASE_URL, the Postgres database of the API (default: the one npm start runs, port CRM_PG_PORT or 54329).',
    '             MEILI_URL, MEILI_MASTER_KEY, MEILI_INDEX_PREFIX for search commands (default: the Meilisearch npm start runs).',
    'Exit codes: 0 success; 1 not found, conflict, database or other runtime error;',
    '            2 usage or validation error (unknown command/flag, missing flag, bad value).',
    '',
    'Examples:',
    '  npm run -s crm -- workspace create --name "Acme" --json',
    '  npm run -s crm -- key create --workspace <id> --scopes read,write --role member --name ci --json',
    '  npm run -s crm -- search reindex --type company',
  ];
  return lines.join('\n');
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h';

/** Index just past the n-th argument that is not `--json` (which may come anywhere). */
function afterNthWord(argv: readonly string[], n: number): number {
  let seen = 0;
  for (let i = 0; i < argv.length; i++) if (argv[i] !== '--json' && ++seen === n) return i + 1;
  return argv.length;
}

/** `<group> <action> --flag value …`; flags are validated per command (strict parseArgs). */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const words = argv.filter((a) => a !== '--json');
  if (words.length === 0) throw new CliUsageError('no command given');
  if (words[0] === 'help' || words.some(isHelp)) return { kind: 'help' };
  const [group, action] = words;
  const groups = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];
  if (group.startsWith('-')) throw new CliUsageError(`expected a command before ${group}`);
  if (!groups.includes(group))
    throw new CliUsageError(`unknown command "${group}"; commands: ${groups.join(', ')}, help`);
  const actions = COMMANDS.filter((c) => c.name.startsWith(group + ' ')).map((c) => c.name.split(' ')[1]);
  if (action === undefined || action.startsWith('-'))
    throw new CliUsageError(`"${group}" needs a subcommand: ${actions.join(', ')}`);
  const command = COMMANDS.find((c) => c.name === `${group} ${action}`);
  if (!command)
    throw new CliUsageError(`unknown command "${group} ${action}"; "${group}" subcommands: ${actions.join(', ')}`);

  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.slice(afterNthWord(argv, 2)),
      options: {
        json: { type: 'boolean' },
        ...Object.fromEntries(command.flags.map((f) => [f.name, { type: 'string' as const }])),
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      throw new CliUsageError(`${command.name}: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
    }
    throw err;
  }
  for (const flag of command.flags) {
    if (flag.required && values[flag.name] === undefined) {
      throw new CliUsageError(
        `${command.name}: missing required flag --${flag.name} ${flag.value}; usage: ${command.name} ${flagUsage(command)}`,
      );
    }
  }
  const { json: _json, ...rest } = values;
  return { kind: 'run', command, values: rest as Record<string, string | undefined> };
}
