import { NON_PRINTABLE } from '../shop-registry/shop-document';

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
 * Output for a terminal, lines and all: every non-printable character escaped but the line
 * feed. JSON keeps reading back the same (JSON.stringify escapes C0 inside strings, so a raw
 * line feed is only ever its layout's; DEL, C1 and format characters it leaves raw are escaped
 * here as `\uXXXX`, which JSON reads as they were).
 */
export function forTerminal(text: string): string {
  return text.replace(EVERY_NON_PRINTABLE, (character) =>
    character === '\n' ? character : unitsEscaped(character),
  );
}
