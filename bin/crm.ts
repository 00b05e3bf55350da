import { EXIT_FAILURE, runCli } from './crm/main';

// Operator CLI: `npm run -s crm -- help`. Parsing and output live in bin/crm/, actions in domain/.

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
    // The ORM is closed by now; should any handle linger, exit instead of hanging the caller.
    setTimeout(() => process.exit(code), 3000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`crm: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
