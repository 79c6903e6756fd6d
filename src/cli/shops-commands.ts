import { Command, Option } from 'commander';
import { loadShopsConfig } from '../config';
import { shopFieldsHelp } from '../shop-registry/shop-fields-docs';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import { newKeyringEntry } from '../secrets/secret-box';
import { CliFailure, EXIT, write, type CliIo } from './cli-io';
import { asUsage, CHECKS, cliActor, readDocument, READS, SEALS, type ShopsCli } from './shops-cli';
import { printable } from './terminal-text';

/**
 * `connector shops ...`: the registry's verbs (CONTRACT "Shops"), the same the admin API serves.
 * `add` and `rotate-token` print the route token once; nothing else prints a secret.
 */
export function shopsCommand(io: CliIo): Command {
  const command = new Command('shops').description(
    'the shops this deployment serves besides the env shop: add, change, disable, remove (README "Many shops")',
  );
  const cli: ShopsCli = {
    io,
    withAdmin: async (needs, run) => {
      const config = loadShopsConfig(io.env, {
        needsKeys: needs !== READS,
        needsPlatform: needs === CHECKS,
      });
      const access = await io.adapters.openShops({ ...config, stderr: io.stderr });
      try {
        return await run(access.admin);
      } finally {
        await access.close();
      }
    },
    json: (value) => write(io.stdout, `${JSON.stringify(value, null, 2)}\n`),
  };
  addAndList(command, cli);
  changes(command, cli);
  checks(command, cli);
  keys(command, cli);
  return command;
}

/** `add` (prints the route token once) and `list`. */
function addAndList(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('add <id>')
    .description(
      'add a shop from its document (checks its credentials first); prints its route token once',
    )
    .requiredOption('--file <document.json|->', 'the shop document (- reads stdin)')
    .addHelpText('after', shopFieldsHelp())
    .option('--json', 'print the answer as JSON')
    .action(async (id: string, options: { file: string; json?: boolean }) => {
      const document = await readDocument(options.file, io);
      if (typeof document !== 'object' || document === null || Array.isArray(document)) {
        throw new CliFailure('the shop document must be a JSON object', EXIT.usage);
      }
      const given = (document as { id?: unknown }).id;
      if (given !== undefined && given !== id) {
        throw new CliFailure(`the document's id (${String(given)}) is not ${id}`, EXIT.usage);
      }
      const added = await withAdmin(CHECKS, (admin) =>
        admin.add({ ...document, id }, cliActor(io.env)).catch(asUsage),
      );
      if (options.json) return json(added);
      await write(
        io.stdout,
        [
          `added shop ${added.shop.id} (${added.shop.provider.name})`,
          `checkout route: ${added.checkout_route.url}`,
          `route token:    ${added.checkout_route.token}`,
          '                (shown once: register the route and this token with the platform now)',
          `webhook URL:    ${added.webhook_url}  (register it with the payment provider)`,
          '',
        ].join('\n'),
      );
    });

  command
    .command('list')
    .description('the registry shops, without secrets')
    .addOption(
      new Option('--format <format>', 'table or json').choices(['table', 'json']).default('table'),
    )
    .action(async (options: { format: 'table' | 'json' }) => {
      const shops = await withAdmin(READS, (admin) => admin.list());
      if (options.format === 'json') return json(shops);
      if (shops.length === 0) {
        await write(io.stdout, 'no shops in the registry (add one with `connector shops add`)\n');
        return;
      }
      await write(io.stdout, shopsTable(shops));
    });
}

/** `show`, `update`, `enable`/`disable` and `rotate-token`. */
function changes(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('show <id>')
    .description('one shop, without secrets')
    .action(async (id: string) => json(await withAdmin(READS, (admin) => admin.show(id))));

  command
    .command('update <id>')
    .description(
      'change name, platform credentials or provider (new credentials are checked first)',
    )
    .requiredOption('--file <document.json|->', 'the fields to change (- reads stdin)')
    .action(async (id: string, options: { file: string }) => {
      const change = await readDocument(options.file, io);
      const view = await withAdmin(CHECKS, (admin) =>
        admin.update(id, change, cliActor(io.env)).catch(asUsage),
      );
      await write(io.stdout, `updated shop ${view.id}\n`);
    });

  for (const [verb, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    command
      .command(`${verb} <id>`)
      .description(
        enabled
          ? 'take new checkouts again'
          : 'take no new checkout (what is in flight still completes)',
      )
      .action(async (id: string) => {
        await withAdmin(READS, (admin) => admin.setEnabled(id, enabled, cliActor(io.env)));
        await write(io.stdout, `shop ${id} ${enabled ? 'enabled' : 'disabled'}\n`);
      });
  }

  command
    .command('rotate-token <id>')
    .description('a new route token, printed once; the previous one works for 24 hours more')
    .option('--revoke-previous', 'the previous token stops working at once (a leaked token)')
    .action(async (id: string, options: { revokePrevious?: boolean }) => {
      const rotated = await withAdmin(SEALS, (admin) =>
        admin.rotateToken(id, cliActor(io.env), { revokePrevious: options.revokePrevious }),
      );
      const until = rotated.previous_token_valid_until;
      await write(
        io.stdout,
        [
          `checkout route: ${rotated.checkout_route.url}`,
          `route token:    ${rotated.checkout_route.token}`,
          `                (shown once; ${until ? `the previous token works until ${until}` : 'the previous token no longer works'})`,
          '',
        ].join('\n'),
      );
    });
}

/** `verify`, `remove` and `audit`. */
function checks(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('verify <id>')
    .description("check the shop's stored credentials with the platform and the provider now")
    .action(async (id: string) => {
      const result = await withAdmin(CHECKS, (admin) => admin.verify(id));
      if (result.ok) {
        await write(
          io.stdout,
          `shop ${id}: the platform and the provider accept its credentials\n`,
        );
        return;
      }
      for (const problem of result.problems)
        await write(io.stderr, `  ${problem.field}: ${problem.problem}\n`);
      throw new CliFailure(`shop ${id}: credentials refused`, EXIT.failure);
    });

  command
    .command('remove <id>')
    .description('remove a shop and its secrets (refused while it has open work)')
    .action(async (id: string) => {
      await withAdmin(READS, (admin) => admin.remove(id, cliActor(io.env)));
      await write(io.stdout, `removed shop ${id}\n`);
    });

  command
    .command('audit <id>')
    .description("the shop's audit trail, newest first")
    .option('--json', 'print it as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const entries = await withAdmin(READS, (admin) => admin.auditTrail(id));
      if (options.json) return json(entries);
      for (const entry of entries) {
        const fields = entry.fields.length > 0 ? ` ${entry.fields.join(', ')}` : '';
        await write(io.stdout, `${entry.at}  ${entry.action.padEnd(13)} ${entry.by}${fields}\n`);
      }
    });
}

/** `rekey` and `new-key`: the master keys of SHOP_SECRET_KEYS. */
function keys(command: Command, { io, withAdmin }: ShopsCli): void {
  command
    .command('rekey')
    .description(
      "re-wrap every shop's data key with the first key of SHOP_SECRET_KEYS, so older keys can be retired",
    )
    .action(async () => {
      const done = await withAdmin(SEALS, (admin) => admin.rekey(cliActor(io.env)));
      await write(
        io.stdout,
        `re-wrapped ${done.rewrapped} shop(s); ${done.current} already used the active key\n`,
      );
    });

  command
    .command('new-key <key-id>')
    .description('print a new entry for SHOP_SECRET_KEYS (put it first to make it the active key)')
    .action(async (keyId: string) => {
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(keyId)) {
        throw new CliFailure('a key id is 1 to 32 letters, digits, _ or -', EXIT.usage);
      }
      await write(io.stdout, `${newKeyringEntry(keyId)}\n`);
    });
}

/** `shops list` as a table: a row a shop, and why a shop is not served under it. */
function shopsTable(shops: Awaited<ReturnType<ShopAdmin['list']>>): string {
  // Escaped before measuring, so the columns line up (write() would escape them anyway).
  const rows = shops.map((shop) =>
    [
      shop.id,
      shop.served === false ? 'not served' : shop.enabled ? 'enabled' : 'disabled',
      shop.provider.name ?? '',
      shop.platform.email,
      shop.name,
    ].map(printable),
  );
  const header = ['SHOP', 'STATE', 'PROVIDER', 'PLATFORM ACCOUNT', 'NAME'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const problems = shops.flatMap((shop) =>
    shop.problem ? [`${shop.id}: not served: ${shop.problem}`] : [],
  );
  return `${[header, ...rows].map(line).concat(problems).join('\n')}\n`;
}
