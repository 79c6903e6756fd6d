// docs/reference/configuration.md's variables, from the schema: one item per variable, grouped as
// config/.env.example groups them.
import path from 'node:path';
import { slug } from 'github-slugger';
import { SECRET_VARIABLES } from '../../src/config';
import { ENV_SHOP_ACCOUNT } from '../../src/config/env-shop-config';
import { PROVIDER_NAMES, requiredProviderVariables } from '../../src/payments/provider-fields';
import { sections, variableOf } from './env-files';
import { withGenerated } from './markdown';

export const VARIABLES_START =
  '<!-- variables:start: generated from src/config/ by `npm run docs`; edit the schema -->';
export const VARIABLES_END = '<!-- variables:end -->';

/** How a description names a section of the documentation: `docs/shops.md "Many shops"`. */
const SECTION_CITATION = /(docs\/[\w/-]+\.md) "([^"]+)"/g;

/** The condition a variable without a default is required under, when the schema sets one. */
function requiredWhen(name: string): string | undefined {
  if ((ENV_SHOP_ACCOUNT as readonly string[]).includes(name)) return '`PLATFORM_EMAIL`';
  const provider = PROVIDER_NAMES.find((candidate) =>
    requiredProviderVariables(candidate).includes(name),
  );
  return provider ? `\`PAYMENT_PROVIDER=${provider}\`` : undefined;
}

/** What the item says before the description: its default or when it is required, and secret. */
function tagsOf(name: string): string[] {
  const { default: value, required } = variableOf(name);
  const when = requiredWhen(name);
  const tags =
    value !== undefined
      ? [`default \`${value}\``]
      : required
        ? ['required']
        : when
          ? [`required with ${when}`]
          : [];
  return SECRET_VARIABLES.includes(name) ? [...tags, 'secret'] : tags;
}

/** Each `docs/shops.md "Many shops"` of `text` as a link to that section, from docs/reference/. */
function linked(text: string): string {
  return text.replace(SECTION_CITATION, (_, file: string, title: string) => {
    return `[${title}](${path.posix.relative('docs/reference', file)}#${slug(title)})`;
  });
}

/** Refuses text that markdown would not show as written: markup outside `code`. */
export function checkedMarkdown(name: string, text: string): string {
  const prose = text.split('`').filter((_, i) => i % 2 === 0);
  if (text.split('`').length % 2 === 0 || prose.some((part) => /[<>*|[\]\\_]/.test(part)))
    throw new Error(`${name}: put code in backticks in its .describe() (markdown would eat it)`);
  return text;
}

/** `text` as list-item lines of at most `width` characters, continued under the item's text. */
export function itemLines(text: string, width = 100): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    // A line that begins like a list item or a quote would start one.
    const startsBlock = /^([-+*>#]|\d+[.)])$/.test(word);
    if (last !== undefined && (`${last} ${word}`.length <= width || startsBlock))
      lines[lines.length - 1] += ` ${word}`;
    else lines.push(last === undefined ? `- ${word}` : `  ${word}`);
  }
  return lines;
}

function itemOf(name: string): string[] {
  const tags = tagsOf(name);
  const head = `**\`${name}\`**${tags.length > 0 ? ` (${tags.join(', ')})` : ''}:`;
  return itemLines(`${head} ${linked(checkedMarkdown(name, variableOf(name).description))}`);
}

/**
 * A group's title as a short heading, and what its parentheses say as a line under it: a section
 * it names (`docs/shops.md "Many shops"`) becomes a link, a variable's name code.
 */
function headingOf(title: string): { heading: string; note?: string } {
  const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
  const [, heading = title, inside] = /^(.*?)\s*\((.*)\)$/.exec(title) ?? [];
  if (inside === undefined) return { heading: capital(title) };
  const note = new RegExp(`^${SECTION_CITATION.source}$`).test(inside)
    ? `See ${linked(inside)}.`
    : `${/^[A-Z][A-Z0-9_]*=/.test(inside) ? 'With ' : ''}${capital(inside.replace(/\b[A-Z][A-Z0-9_]*_[A-Z0-9_]+(=\w+)?/g, '`$&`'))}.`;
  return { heading: capital(heading), note };
}

/** The generated part of docs/reference/configuration.md, markers included: a section a group. */
function renderVariables(): string {
  const out = [VARIABLES_START];
  for (const { title, variables } of sections()) {
    const { heading, note } = headingOf(title);
    out.push('', `## ${heading}`, '');
    if (note) out.push(note, '');
    for (const name of variables) out.push(...itemOf(name));
  }
  return [...out, '', VARIABLES_END].join('\n');
}

/** `page` with its generated variables written afresh; throws when a marker is missing. */
export function withVariables(page: string): string {
  return withGenerated(page, { start: VARIABLES_START, end: VARIABLES_END }, renderVariables());
}
