import type { UIConfig } from '@bull-board/api/typings/app';

/**
 * The dashboard's fonts, as bull-board's theme tokens: stacks of fonts the operator's machine
 * has. bull-board's page links IBM Plex from Google Fonts, which withoutOutsideRequests drops;
 * IBM Plex stays first for a machine that has it installed.
 */
const LOCAL_FONTS = {
  'font-sans':
    '"IBM Plex Sans", system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif',
  'font-mono':
    '"IBM Plex Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace',
} as const;

export const LOCAL_FONT_THEME: NonNullable<UIConfig['theme']> = {
  light: LOCAL_FONTS,
  dark: LOCAL_FONTS,
};

/** A stylesheet, icon, preconnect or script that another host would serve (absolute or `//`). */
const OUTSIDE_LINK = /<link\b[^>]*\bhref\s*=\s*["']?(?:[a-z][a-z0-9+.-]*:)?\/\/[^>]*>\s*/gi;
const OUTSIDE_SCRIPT =
  /<script\b[^>]*\bsrc\s*=\s*["']?(?:[a-z][a-z0-9+.-]*:)?\/\/[^>]*>\s*<\/script>\s*/gi;

/**
 * bull-board's page without what it would fetch from another host (its Google Fonts
 * stylesheet): no page of the connector loads anything from elsewhere (CONTRACT), so the
 * dashboard works offline and tells no one who opened it.
 */
export function withoutOutsideRequests(html: string): string {
  return html.replace(OUTSIDE_LINK, '').replace(OUTSIDE_SCRIPT, '');
}
