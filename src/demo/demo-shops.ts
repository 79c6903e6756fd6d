import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../cli/program';
import { cliAdapters } from '../main/cli-adapters';
import type { RunningConnector } from '../main/compose';
import { DEFAULT_PROVIDER } from '../payments/providers';

export const ENV_SHOP_NAME = 'Móveis Aurora';

/** A demo shop's site: the simulator's page of its orders, where "Voltar à loja" leads. */
export function demoSiteUrl(platformUrl: string, account: string, name: string): string {
  const query = new URLSearchParams({ account, name });
  return `${platformUrl}/__simulator/shop?${query.toString()}`;
}

export const SECOND_SHOP = {
  id: 'marcenaria-demo',
  name: 'Marcenaria Demo',
  platform: {
    email: 'marcenaria-demo@example.com',
    password: randomBytes(9).toString('base64url'),
    apiKey: randomBytes(12).toString('hex'),
  },
  provider: { name: DEFAULT_PROVIDER },
  // A deposit now and the balance later, Pix or card, paid on the connector's page (docs/plans.md).
  payment: { methods: ['pix', 'card'], maxInstallments: 12 },
  plan: { deposit: { percent: 30 }, finishOn: 'deposit', balanceDueDays: 30, splitTender: true },
};

/** `connector shops add` as an operator would run it (in this process); answers the route token. */
export async function addShopWithCli(
  env: Record<string, string>,
  siteUrl: string,
): Promise<string> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let printed = '';
  stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const { id, ...document } = SECOND_SHOP;
  const code = await runCli(['shops', 'add', id, '--file', '-'], {
    env,
    stdout,
    stderr,
    stdin: Readable.from([JSON.stringify({ ...document, siteUrl })]),
    adapters: cliAdapters,
  });
  const token = /route token: +(\S+)/.exec(printed)?.[1];
  if (code !== 0 || !token) throw new Error(`connector shops add exited ${code}`);
  return token;
}

export async function requestShopCheckout(
  connector: RunningConnector,
  token: string,
  serviceId: number,
): Promise<number> {
  const response = await fetch(`${connector.url}/shops/${SECOND_SHOP.id}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ service_id: serviceId }),
  });
  await response.body?.cancel();
  return response.status;
}
