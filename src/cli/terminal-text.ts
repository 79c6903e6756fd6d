import { NON_PRINTABLE } from '../registry/shop-document';

/**
 * Stored text as the CLI prints it: a shop stored before names had to be printable (or any
 * other text a person typed) may hold escape sequences, bidi overrides or zero-width characters
 * that would rewrite what an operator's terminal shows. Each such character is printed as its
 * escape instead.
 */
const EVERY_NON_PRINTABLE = new RegExp(NON_PRINTABLE.source, 'gu');

/** `\uXXXX` for each UTF-16 unit of a character, as JSON and JavaScript spell it. */
function unitsEscaped(character: string): string {
  return [...Array(character.length).keys()]
    .map((index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`)
    .join('');
}

/** Text for a terminal line: every non-printable character escaped (`\u001b`). */
export function printable(text: string): string {
  return text.replace(EVERY_NON_PRINTABLE, unitsEscaped);
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls, but prints DEL, C1 controls and
 * format characters raw; these are escaped too, as `\uXXXX`, so the output stays valid JSON
 * that reads back to the same value.
 */
export function printableJson(value: unknown): string {
  // A raw line feed can only be the layout's: JSON.stringify escapes those inside strings.
  return JSON.stringify(value, null, 2).replace(EVERY_NON_PRINTABLE, (character) =>
    character === '\n' ? character : unitsEscaped(character),
  );
}
