import { Command, Option } from 'commander';
import { envShopSummary, readConfig, shopsConfig } from '../config';
import { shopFieldsHelp } from '../shop-registry/shop-fields-help';
import { CONNECTABLE } from '../connect/connect-links';
import { newKeyringEntry } from '../secrets/secret-box';
import { CliFailure, EXIT, formatOption, write, type CliIo } from './cli-io';
import { asUsage, CHECKS, cliActor, readDocument, READS, SEALS, type ShopsCli } from './shops-cli';
import { fieldsTable, shopsTable } from './shops-tables';

/**
 * `connector shops` (CONTRACT "Shops"): `add` and `rotate-token` print the route token once;
 * nothing else prints a secret.
 */
export function shopsCommand(io: CliIo): Command {
  const command = new Command('shops').description(
    'the shops this deployment serves besides the env shop: add, change, disable, remove (docs/shops.md)',
  );
  const cli: ShopsCli = {
    io,
    withAdmin: async (needs, run) => {
      const config = readConfig(shopsConfig(needs), io.env);
      const access = await io.adapters.openShops({ ...config, stderr: io.stderr });
      try {
        return await run(access.admin, access.links);
      } finally {
        await access.close();
      }
    },
    json: (value) => write(io.stdout, `${JSON.stringify(value, null, 2)}\n`),
  };
  // In the order `shops --help` lists them.
  for (const verbs of [add, list, show, toggles, rotateToken, update, verify, removeAndAudit])
    verbs(command, cli);
  connect(command, cli);
  keys(command, cli);
  return command;
}

/** `add`: checks the credentials first; prints the route token once. */
function add(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('add <id>')
    .description(
      'add a shop from its document (checks its credentials first); prints its route token once',
    )
    .requiredOption('--file <document.json|->', 'the shop document (- reads stdin)')
    .addHelpText('after', shopFieldsHelp())
    .option('--json', 'print the answer as JSON')
    .action(async (id: string, options: { file: string; json?: boolean }) => {
      const document = documentOf(id, await readDocument(options.file, io));
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
}

/** A shop document read for `add <id>`: a JSON object, of that id if it names one. */
function documentOf(id: string, document: unknown): object {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new CliFailure('the shop document must be a JSON object', EXIT.usage);
  }
  const given = (document as { id?: unknown }).id;
  if (given !== undefined && given !== id) {
    throw new CliFailure(`the document's id (${String(given)}) is not ${id}`, EXIT.usage);
  }
  return document;
}

/** `list`: the env shop first, when the command's environment describes one. */
function list(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('list')
    .description(
      "every shop, without secrets: the env shop first when this command's environment describes one (PLATFORM_EMAIL), then the registry's",
    )
    .addOption(formatOption(['table', 'json']))
    .action(async (options: { format: Format }) => {
      const envShop = envShopSummary(io.env);
      const shops = await withAdmin(READS, (admin) => admin.list());
      if (options.format === 'json') return json(envShop ? [envShop, ...shops] : shops);
      if (shops.length === 0 && !envShop) {
        await write(io.stdout, 'no shops in the registry (add one with `connector shops add`)\n');
        return;
      }
      await write(io.stdout, shopsTable(envShop, shops));
    });
}

/** `update`: the fields a document gives, credentials checked first. */
function update(command: Command, { io, withAdmin }: ShopsCli): void {
  command
    .command('update <id>')
    .description(
      'change name, site, platform credentials, provider or payment (new credentials are checked first)',
    )
    .requiredOption('--file <document.json|->', 'the fields to change (- reads stdin)')
    .action(async (id: string, options: { file: string }) => {
      const change = await readDocument(options.file, io);
      // Only new credentials are checked, with the platform and the provider: a change of
      // name, site or payment needs the keyring alone.
      const credentials =
        typeof change !== 'object' ||
        change === null ||
        ['platform', 'provider'].some((part) => part in change);
      const view = await withAdmin(credentials ? CHECKS : SEALS, (admin) =>
        admin.update(id, change, cliActor(io.env)).catch(asUsage),
      );
      await write(io.stdout, `updated shop ${view.id}\n`);
    });
}

function show(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('show <id>')
    .description('one registry shop, without secrets')
    .addOption(formatOption(['table', 'json']))
    .action(async (id: string, options: { format: Format }) => {
      const shop = await withAdmin(READS, (admin) => admin.show(id));
      if (options.format === 'json') return json(shop);
      await write(io.stdout, fieldsTable(shop));
    });
}

/** `disable` and `enable`: new checkouts refused, or taken again. */
function toggles(command: Command, { io, withAdmin }: ShopsCli): void {
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
}

function rotateToken(command: Command, { io, withAdmin }: ShopsCli): void {
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

/** `connect`: a link the shop's owner follows to connect the shop's provider account. */
function connect(command: Command, { io, withAdmin, json }: ShopsCli): void {
  command
    .command('connect <id>')
    .description(
      "a link (single use, 7 days) the shop's owner follows to connect the shop's provider account, no keys pasted (docs/shops.md)",
    )
    .requiredOption('--provider <provider>', `the provider to connect: ${CONNECTABLE.join(', ')}`)
    .option('--json', 'print the answer as JSON')
    .action(async (id: string, options: { provider: string; json?: boolean }) => {
      const link = await withAdmin(READS, (_admin, links) =>
        links.create(id, options.provider, cliActor(io.env)).catch(asUsage),
      );
      if (options.json) return json(link);
      await write(
        io.stdout,
        [
          `connect link:   ${link.url}`,
          `valid until:    ${link.expires_at} (one connection)`,
          "                (send it to the shop's owner: it connects this shop only)",
          '',
        ].join('\n'),
      );
    });
}

/** `verify`: the shop's stored credentials, checked with the platform and the provider now. */
function verify(command: Command, { io, withAdmin }: ShopsCli): void {
  command
    .command('verify <id>')
    .description("check the shop's stored credentials with the platform and the provider now")
    .action(async (id: string) => {
      const result = await withAdmin(CHECKS, (admin) => admin.verify(id));
      const { credential } = result;
      // A credential that expires (a client certificate): when, and the days left to replace it.
      const expiry = credential
        ? `  ${credential.kind.replace(/_/g, ' ')} expires ${credential.expiresAt.slice(0, 10)}: ${credential.daysLeft < 0 ? 'expired' : `${credential.daysLeft} days left`}\n`
        : '';
      if (result.ok) {
        const accepted = `shop ${id}: the platform and the provider accept its credentials\n`;
        return write(io.stdout, `${accepted}${expiry}`);
      }
      if (expiry) await write(io.stderr, expiry);
      for (const problem of result.problems)
        await write(io.stderr, `  ${problem.field}: ${problem.problem}\n`);
      throw new CliFailure(`shop ${id}: credentials refused`, EXIT.failure);
    });
}

function removeAndAudit(command: Command, { io, withAdmin, json }: ShopsCli): void {
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
    .addOption(formatOption(['table', 'json']))
    // The flag before --format, kept for scripts that use it.
    .addOption(new Option('--json', 'the same as --format json').hideHelp())
    .action(async (id: string, options: { format: Format; json?: boolean }) => {
      const entries = await withAdmin(READS, (admin) => admin.auditTrail(id));
      if (options.json || options.format === 'json') return json(entries);
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

type Format = 'table' | 'json';
