import { DEFAULT_PROVIDER, PROVIDER_LIST } from '../payments/providers';
import { documentFields } from './shop-document';
import type { ShopField } from './shop-fields';

/** A shop document's fields: those every shop has (`provider` for none), then each provider's. */
export function fieldGroups(): Array<{
  provider?: (typeof PROVIDER_LIST)[number];
  fields: ShopField[];
}> {
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

/** `connector shops add --help`'s list of the document's fields (docs/shops.md has the same). */
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
