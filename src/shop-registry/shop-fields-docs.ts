import { checkedMarkdown, itemLines, withGenerated } from '../config/variables-docs';
import { DEFAULT_PROVIDER, PROVIDER_LIST, PROVIDERS } from '../payments/providers';
import { documentFields } from './shop-document';
import type { ShopField } from './shop-fields';

/**
 * docs/shops.md's list of a shop document's fields, written from the field table
 * (`documentFields`: the schemas' metadata and each provider's descriptor) by `npm run docs`,
 * between two markers. A unit test fails when the page differs from what this module writes.
 */
export const SHOP_FIELDS_START =
  '<!-- shop-fields:start: generated from the shop schema by `npm run docs`; edit the schema -->';
export const SHOP_FIELDS_END = '<!-- shop-fields:end -->';

function itemOf(field: ShopField): string[] {
  const tags = [
    field.secret ? 'secret: sealed, never shown nor logged' : undefined,
    field.env ? `the env shop's \`${field.env}\`` : undefined,
  ].filter(Boolean);
  const head = `**\`${field.path}\`**${tags.length > 0 ? ` (${tags.join('; ')})` : ''}:`;
  if (!field.description) throw new Error(`${field.path} has no description in the shop schema`);
  return itemLines(`${head} ${checkedMarkdown(field.path, field.description)}`);
}

/**
 * The document's fields in the order both lists give them: those every shop has (`provider` for
 * none), then each provider's own under that provider.
 */
function fieldGroups(): Array<{ provider?: (typeof PROVIDER_LIST)[number]; fields: ShopField[] }> {
  const providerPart = (field: ShopField) =>
    field.path.startsWith('provider.') && field.path !== 'provider.name';
  const every = documentFields(DEFAULT_PROVIDER);
  return [
    { fields: every.filter((field) => !providerPart(field)) },
    ...PROVIDER_LIST.map((provider) => ({
      provider,
      fields: documentFields(provider.name).filter(providerPart),
    })),
  ];
}

/** The generated list, markers included: the fields every shop has, then each provider's. */
export function renderShopFields(): string {
  const out = [SHOP_FIELDS_START];
  for (const { provider, fields } of fieldGroups()) {
    const title = provider
      ? `**${PROVIDERS[provider.name].label}** (\`"name": "${provider.name}"\`)`
      : '**Every shop**';
    out.push('', title, '');
    if (fields.length === 0) out.push('- no field of its own.');
    for (const field of fields) out.push(...itemOf(field));
  }
  return [...out, '', SHOP_FIELDS_END].join('\n');
}

/** `page` with its generated list written afresh; throws when a marker is missing. */
export function withShopFields(page: string): string {
  return withGenerated(
    page,
    { start: SHOP_FIELDS_START, end: SHOP_FIELDS_END },
    renderShopFields(),
  );
}

/**
 * The same list as plain text, for `connector shops add --help`: the document's shape, then
 * every field, each provider's under its name, secrets marked.
 */
export function shopFieldsHelp(): string {
  const line = (field: ShopField) =>
    `  ${field.path}${field.secret ? ' [secret]' : ''}${field.env ? ` (env shop: ${field.env})` : ''}: ${field.description.replaceAll('`', '')}`;
  const out = [
    '',
    'The shop document (JSON; unknown fields are refused):',
    '  {"id", "name", "platform": {...}, "provider": {"name", ...}, "payment": {...}}',
  ];
  for (const { provider, fields } of fieldGroups()) {
    out.push(
      '',
      provider ? `"provider": {"name": "${provider.name}"} (${provider.label}):` : 'Every shop:',
    );
    out.push(...(fields.length > 0 ? fields.map(line) : ['  no field of its own']));
  }
  return out.join('\n');
}
