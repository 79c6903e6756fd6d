// docs/shops.md's list of a shop document's fields, from the field table (the schemas' metadata and
// each provider's descriptor): the fields every shop has, then each provider's.
import { PROVIDERS } from '../../src/payments/providers';
import type { ShopField } from '../../src/shop-registry/shop-fields';
import { fieldGroups } from '../../src/shop-registry/shop-fields-help';
import { withGenerated } from './markdown';
import { checkedMarkdown, itemLines } from './variables';

const SHOP_FIELDS_START =
  '<!-- shop-fields:start: generated from the shop schema by `npm run docs`; edit the schema -->';
const SHOP_FIELDS_END = '<!-- shop-fields:end -->';

function itemOf(field: ShopField): string[] {
  const tags = [
    field.secret ? 'secret: sealed, never shown nor logged' : undefined,
    field.env ? `the env shop's \`${field.env}\`` : undefined,
  ].filter(Boolean);
  const head = `**\`${field.path}\`**${tags.length > 0 ? ` (${tags.join('; ')})` : ''}:`;
  if (!field.description) throw new Error(`${field.path} has no description in the shop schema`);
  return itemLines(`${head} ${checkedMarkdown(field.path, field.description)}`);
}

/** `page` with its list of fields written afresh; throws when a marker is missing. */
export function withShopFields(page: string): string {
  const out = [SHOP_FIELDS_START];
  for (const { provider, fields } of fieldGroups()) {
    const title = provider
      ? `**${PROVIDERS[provider.name].label}** (\`"name": "${provider.name}"\`)`
      : '**Every shop**';
    out.push('', title, '');
    if (fields.length === 0) out.push('- no field of its own.');
    for (const field of fields) out.push(...itemOf(field));
  }
  const list = [...out, '', SHOP_FIELDS_END].join('\n');
  return withGenerated(page, { start: SHOP_FIELDS_START, end: SHOP_FIELDS_END }, list);
}
