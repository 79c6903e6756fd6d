import { NON_PRINTABLE } from '../shop-registry/shop-document';

// Stored text may hold escapes, bidi overrides or zero-width characters that rewrite a terminal.
const EVERY_NON_PRINTABLE = new RegExp(NON_PRINTABLE.source, 'gu');

function unitsEscaped(character: string): string {
  return [...Array(character.length).keys()]
    .map((index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`)
    .join('');
}

/** Text for a terminal line: every non-printable character escaped (`\u001b`). */
export function printable(text: string): string {
  return text.replace(EVERY_NON_PRINTABLE, unitsEscaped);
}

/** For a terminal, lines and all; JSON reads back the same (it escapes C0; DEL, C1 as `\uXXXX`). */
export function forTerminal(text: string): string {
  return text.replace(EVERY_NON_PRINTABLE, (character) =>
    character === '\n' ? character : unitsEscaped(character),
  );
}
