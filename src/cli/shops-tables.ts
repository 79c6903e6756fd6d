import type { EnvShopSummary } from '../config';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import { printable } from './terminal-text';

type ListedShop = Awaited<ReturnType<ShopAdmin['list']>>[number];

/** `shops list`: the env shop first (state `env`: it lives in variables, not the registry). */
export function shopsTable(envShop: EnvShopSummary | undefined, shops: ListedShop[]): string {
  const envRow = envShop
    ? [[envShop.id, 'env', envShop.provider.name, envShop.platform.email, envShop.name ?? '']]
    : [];
  // Escaped before measuring, so the columns line up (write() would escape them anyway).
  const rows = [
    ...envRow,
    ...shops.map((shop) => [
      shop.id,
      shop.served === false
        ? 'not served'
        : shop.needs_reconnect
          ? 'needs reconnect'
          : shop.enabled
            ? 'enabled'
            : 'disabled',
      shop.provider.name ?? '',
      shop.platform.email,
      shop.name,
    ]),
  ].map((row) => row.map(printable));
  const header = ['SHOP', 'STATE', 'PROVIDER', 'PLATFORM ACCOUNT', 'NAME'];
  const problems = shops.flatMap((shop) => [
    ...(shop.problem ? [`${shop.id}: not served: ${shop.problem}`] : []),
    ...(shop.needs_reconnect
      ? [
          `${shop.id}: must connect again since ${shop.needs_reconnect.since} (${shop.needs_reconnect.reason}): \`connector shops connect ${shop.id} --provider ${shop.provider.name}\``,
        ]
      : []),
  ]);
  return `${aligned([header, ...rows])
    .concat(problems)
    .join('\n')}\n`;
}

function aligned(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** One shop as `field  value` lines, parts by path (`provider.name`), lists comma-separated. */
export function fieldsTable(value: object): string {
  const rows: string[][] = [];
  const walk = (at: string, item: unknown): void => {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      for (const [key, inner] of Object.entries(item)) walk(at ? `${at}.${key}` : key, inner);
    } else {
      rows.push([at, Array.isArray(item) ? item.join(', ') : String(item)].map(printable));
    }
  };
  walk('', value);
  return `${aligned(rows).join('\n')}\n`;
}
