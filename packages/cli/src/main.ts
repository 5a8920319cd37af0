/**
 * The `trellis` command (DESIGN.md §6): validate, run, runs, reopen, cancel, mesh, webhook, schedule, service, user, audit, backup, restore, tool, worker, orchestrator.
 * Exit codes: 0 done/valid, 1 failed/stalled/findings, 2 bad arguments or unreachable Redis/database.
 */
import { Command, CommanderError } from 'commander';
import { auditVerifyCommand } from './commands/audit';
import { backupCommand, restoreCommand, type BackupOptions } from './commands/backup';
import { cancelCommand } from './commands/cancel';
import { meshPublishCommand } from './commands/mesh';
import { reopenCommand } from './commands/reopen';
import { runCommand } from './commands/run';
import { runsCommand } from './commands/runs';
import {
  egressAllowCommand,
  egressListCommand,
  egressRemoveCommand,
  secretListCommand,
  secretRemoveCommand,
  secretRotateKeyCommand,
  secretSetCommand,
} from './commands/secret';
import { serviceAddCommand, serviceListCommand, serviceRemoveCommand } from './commands/service';
import {
  scheduleAddCommand,
  scheduleEnabledCommand,
  scheduleListCommand,
  scheduleRemoveCommand,
  webhookAddCommand,
  webhookListCommand,
  webhookRemoveCommand,
} from './commands/entry';
import { orchestratorCommand, workerCommand } from './commands/serve';
import { userAddCommand, userDisabledCommand, userListCommand, userPasswordCommand, userRemoveCommand, userRoleCommand } from './commands/user';
import { toolAddCommand, toolListCommand, toolRemoveCommand, type ToolAddOptions } from './commands/tool';
import { validateCommand } from './commands/validate';
import { EXIT, report, wantsJson } from './fail';

function action<A extends unknown[]>(fn: (...args: A) => Promise<number>) {
  return async (...args: A) => {
    let code: number;
    try {
      code = await fn(...args);
    } catch (err) {
      code = report(err);
    }
    process.exit(code);
  };
}

const program = new Command('trellis')
  .description('Trellis: run agent meshes from the command line')
  .exitOverride()
  .showHelpAfterError();

program
  .command('validate')
  .description('check a mesh file; exit 0 valid, 1 findings, 2 unreadable')
  .argument('<mesh>', 'mesh file (trellis.mesh/v1 JSON)')
  .option('--json', 'print { valid, findings } as JSON')
  .action(action((file: string, opts: { json?: boolean }) => validateCommand(file, opts)));

program
  .command('run')
  .description('run a mesh on an input file and wait for it; exit 0 done, 1 failed or stalled')
  .argument('<mesh>', 'mesh file (imported as a new version when it changed)')
  .requiredOption('--input <file>', 'input file, read as bytes (UTF-8)')
  .option('--output <file>', "write the result's text (or its JSON) to this file")
  .option('--json', 'print one JSON object: runId, status, cause, counts, seconds')
  .option('--timeout <seconds>', 'give up waiting after this many seconds (default 600)')
  .action(action((file: string, opts: { input: string; output?: string; json?: boolean; timeout?: string }) => runCommand(file, opts)));

program
  .command('runs')
  .description('list recent runs')
  .option('--status <status>', 'only runs in this status (queued, running, done, failed, stalled, cancelled)')
  .option('--limit <n>', 'how many (default 20)')
  .option('--json', 'print JSON')
  .action(action((opts: { status?: string; limit?: string; json?: boolean }) => runsCommand(opts)));

program
  .command('reopen')
  .description('re-open a failed or stalled run from its failed step and wait for it; exit 0 done, 1 failed or stalled')
  .argument('<runId>')
  .option('--latest', "run on the mesh's latest saved version instead of the run's own")
  .option('--json', 'print one JSON object: runId, status, cause, counts, seconds, reopen')
  .option('--timeout <seconds>', 'give up waiting after this many seconds (default 600)')
  .action(action((runId: string, opts: { latest?: boolean; json?: boolean; timeout?: string }) => reopenCommand(runId, opts)));

program
  .command('cancel')
  .description('cancel a running run: stop its steps wherever they run and set its open messages aside')
  .argument('<runId>')
  .option('--reason <text>', 'why, shown on the run')
  .option('--json', 'print { runId, status, runs, messages } as JSON')
  .action(action((runId: string, opts: { reason?: string; json?: boolean }) => cancelCommand(runId, opts)));

for (const kind of ['secret', 'connection'] as const) {
  const group = program.command(kind).description(kind === 'secret' ? 'secrets steps may send, each only to its hosts (admins)' : 'named SQL connections (database URLs) for SQL steps (admins)');
  const set = group.command('set').description(`store a ${kind}; the value is read from stdin and never printed`).argument('<name>');
  if (kind === 'secret') set.requiredOption('--hosts <hosts>', 'comma-separated hosts the secret may be sent to (name, name:port or *.domain)');
  set.action(action((name: string, opts: { hosts?: string }) => secretSetCommand(kind, name, opts)));
  group.command('list').description(`list ${kind}s (names and hosts, never values)`).option('--json', 'print JSON').action(action((opts: { json?: boolean }) => secretListCommand(kind, opts)));
  group.command('remove').argument('<name>').description(`delete a ${kind}`).action(action((name: string) => secretRemoveCommand(kind, name)));
  if (kind === 'secret') group.command('rotate-key').description('re-seal every secret and connection under a fresh key').action(action(() => secretRotateKeyCommand()));
}

const egress = program.command('egress').description("the install's egress policy: which hosts steps, agents and code may reach (admins)");
egress
  .command('allow')
  .argument('<pattern>', '*, *.example.com, a host or host:port')
  .option('--internal', 'also let this exact host resolve to a loopback, private or link-local address')
  .action(action((pattern: string, opts: { internal?: boolean }) => egressAllowCommand(pattern, opts)));
egress.command('list').option('--json', 'print JSON').action(action((opts: { json?: boolean }) => egressListCommand(opts)));
egress.command('remove').argument('<pattern>').action(action((pattern: string) => egressRemoveCommand(pattern)));

const mesh = program.command('mesh').description('settings of saved meshes');
mesh
  .command('publish')
  .description('offer a saved mesh to other systems as an MCP tool and an A2A agent (--off withdraws it)')
  .argument('<name>', 'the mesh name')
  .option('--off', 'withdraw it')
  .option('--json', 'print { meshId, name, published } as JSON')
  .action(action((name: string, opts: { off?: boolean; json?: boolean }) => meshPublishCommand(name, opts)));

const webhook = program.command('webhook').description('signed webhooks that start runs of a mesh');
webhook
  .command('add')
  .description('make a webhook and print its secret once')
  .argument('<name>', '1-63 letters, digits, "-" or "_"')
  .requiredOption('--mesh <mesh>', 'the mesh it starts (id or name)')
  .option('--callback <url>', "POST the run's answer here when it ends (signed; under the egress policy)")
  .option('--json', 'print JSON')
  .action(action((name: string, opts: { mesh: string; callback?: string; json?: boolean }) => webhookAddCommand(name, opts)));
webhook.command('list').option('--json', 'print JSON').action(action((opts: { json?: boolean }) => webhookListCommand(opts)));
webhook.command('remove').argument('<webhook>', 'id or name').action(action((name: string) => webhookRemoveCommand(name)));

const schedule = program.command('schedule').description('cron schedules that start runs of a mesh on a fixed input');
schedule
  .command('add')
  .argument('<name>', '1-63 letters, digits, "-" or "_"')
  .requiredOption('--mesh <mesh>', 'the mesh it starts (id or name)')
  .requiredOption('--cron <expression>', 'e.g. "0 9 * * 1-5" (09:00 on weekdays); 6 fields for seconds')
  .option('--timezone <zone>', 'IANA time zone (default UTC)')
  .option('--text <text>', 'the input, as text')
  .option('--json-input <json>', 'the input, as a JSON object')
  .option('--missed <policy>', 'ticks missed while no orchestrator ran: skip (default) or run_once')
  .option('--json', 'print JSON')
  .action(
    action((name: string, opts: { mesh: string; cron: string; timezone?: string; text?: string; jsonInput?: string; missed?: string; json?: boolean }) =>
      scheduleAddCommand(name, opts),
    ),
  );
schedule.command('list').option('--json', 'print JSON').action(action((opts: { json?: boolean }) => scheduleListCommand(opts)));
schedule.command('enable').argument('<schedule>', 'id or name').action(action((name: string) => scheduleEnabledCommand(name, true)));
schedule.command('disable').argument('<schedule>', 'id or name').action(action((name: string) => scheduleEnabledCommand(name, false)));
schedule.command('remove').argument('<schedule>', 'id or name').action(action((name: string) => scheduleRemoveCommand(name)));

const service = program.command('service').description('register outside services and their API keys');
service
  .command('add')
  .description('register a service and print its API key once')
  .argument('<name>', 'the name service members use (1-63 letters, digits, "-" or "_")')
  .option('--json', 'print { name, apiKey } as JSON')
  .action(action((name: string, opts: { json?: boolean }) => serviceAddCommand(name, opts)));
service
  .command('list')
  .description('list registered services')
  .option('--json', 'print JSON')
  .action(action((opts: { json?: boolean }) => serviceListCommand(opts)));
service
  .command('remove')
  .description('remove a service; its key stops working')
  .argument('<name>')
  .action(action((name: string) => serviceRemoveCommand(name)));

const user = program.command('user').description('people who sign in, and their roles (admin, designer, operator, viewer)');
user
  .command('add')
  .description('add a person; without --password one is generated and printed once')
  .argument('<email>')
  .requiredOption('--role <role>', 'admin, designer, operator or viewer')
  .option('--name <name>', 'shown in the web app (default: the part of the email before @)')
  .option('--password <password>', 'at least 10 characters')
  .option('--json', 'print JSON')
  .action(action((email: string, opts: { role: string; name?: string; password?: string; json?: boolean }) => userAddCommand(email, opts)));
user
  .command('list')
  .description('list people and their roles')
  .option('--json', 'print JSON')
  .action(action((opts: { json?: boolean }) => userListCommand(opts)));
user
  .command('role')
  .description("change a person's role; their open sessions end")
  .argument('<user>', 'email or id')
  .argument('<role>', 'admin, designer, operator or viewer')
  .option('--json', 'print JSON')
  .action(action((who: string, role: string, opts: { json?: boolean }) => userRoleCommand(who, role, opts)));
user
  .command('disable')
  .description('stop a person signing in; their open sessions end')
  .argument('<user>', 'email or id')
  .option('--json', 'print JSON')
  .action(action((who: string, opts: { json?: boolean }) => userDisabledCommand(who, true, opts)));
user
  .command('enable')
  .description('let a disabled person sign in again')
  .argument('<user>', 'email or id')
  .option('--json', 'print JSON')
  .action(action((who: string, opts: { json?: boolean }) => userDisabledCommand(who, false, opts)));
user
  .command('password')
  .description("set a person's password (generated and printed once without --password); their open sessions end")
  .argument('<user>', 'email or id')
  .option('--password <password>', 'at least 10 characters')
  .option('--json', 'print JSON')
  .action(action((who: string, opts: { password?: string; json?: boolean }) => userPasswordCommand(who, opts)));
user
  .command('remove')
  .description('remove a person; their open sessions end')
  .argument('<user>', 'email or id')
  .option('--json', 'print JSON')
  .action(action((who: string, opts: { json?: boolean }) => userRemoveCommand(who, opts)));

program
  .command('audit')
  .description('the sealed audit trail')
  .command('verify')
  .description('check the hash chain; exit 0 intact, 1 naming the first broken entry')
  .option('--json', 'print the verdict as JSON')
  .action(action((opts: { json?: boolean }) => auditVerifyCommand(opts)));
program
  .command('backup')
  .description('copy the embedded database (a consistent snapshot, also while Trellis runs); Postgres: use pg_dump')
  .requiredOption('--output <file>', 'where to write the snapshot (written whole, mode 0600)')
  .option('--url <url>', 'ask this running Trellis for it (it holds the embedded database), e.g. http://localhost:3000')
  .option('--token <token>', 'an admin API token for --url (default TRELLIS_TOKEN)')
  .option('--json', 'print { output, bytes, sha256, source } as JSON')
  .action(action((opts: BackupOptions) => backupCommand(opts)));

program
  .command('restore')
  .description('load a backup into the embedded database directory (Trellis stopped); the earlier contents are kept beside it')
  .argument('<file>', 'a file `trellis backup` wrote')
  .option('--json', 'print { dataDir, previous } as JSON')
  .action(action((file: string, opts: { json?: boolean }) => restoreCommand(file, opts)));

const collect = (value: string, previous: string[] = []) => [...previous, value];
const tool = program.command('tool').description('register MCP tool servers that agents list in "tools" (admins)');
tool
  .command('add')
  .description('register (or replace) a tool server: a stdio command or a streamable-HTTP URL')
  .argument('<name>', 'the name agents list in "tools"')
  .option('--command <program>', 'stdio server: the program to start')
  .option('--arg <value>', 'stdio server: one argument (repeat for more)', collect)
  .option('--cwd <dir>', 'stdio server: working directory')
  .option('--env <NAME=value>', 'stdio server: a plain environment value (repeat for more)', collect)
  .option('--secret-env <NAME=secret>', 'stdio server: an environment value from the secrets store, by name (repeat)', collect)
  .option('--url <url>', 'streamable-HTTP server: its endpoint')
  .option('--secret-header <Header=secret>', 'HTTP server: a header from the secrets store, by name (repeat)', collect)
  .option('--json', 'print the saved server as JSON')
  .action(action((name: string, opts: ToolAddOptions) => toolAddCommand(name, opts)));
tool
  .command('list')
  .description('list tool servers')
  .option('--json', 'print JSON')
  .action(action((opts: { json?: boolean }) => toolListCommand(opts)));
tool
  .command('remove')
  .description('remove a tool server')
  .argument('<name>')
  .action(action((name: string) => toolRemoveCommand(name)));

program
  .command('worker')
  .description('serve worker pools until SIGTERM (needs DATABASE_URL)')
  .option('--pool <names>', 'pool to serve, e.g. agents; a comma-separated list; or * for every pool saved meshes name (default "default")')
  .option('--concurrency <n>', 'jobs held at once')
  .action(action((opts: { pool?: string; concurrency?: string }) => workerCommand(opts)));

program
  .command('orchestrator')
  .description('run the relay, finalizer and stall detector until SIGTERM (needs DATABASE_URL)')
  .action(action(() => orchestratorCommand()));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
    // Commander has said it on stderr; with --json, stdout still gets one JSON object.
    if (!ok && wantsJson()) process.stdout.write(`${JSON.stringify({ error: { code: 'usage', message: err.message.replace(/^error: /, '') } })}\n`);
    process.exit(ok ? EXIT.ok : EXIT.usage);
  }
  process.exit(report(err));
}
