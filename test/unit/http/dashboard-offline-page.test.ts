import { readFileSync } from 'node:fs';
import path from 'node:path';
import { withoutOutsideRequests } from '../../../src/http/dashboard/offline-page';

/** Any src or href naming a host: absolute (`https://…`) or protocol-relative (`//…`). */
const OUTSIDE_REFERENCE = /\b(?:src|href)\s*=\s*["']?(?:[a-z][a-z0-9+.-]*:)?\/\//i;

describe("the dashboard's page, offline", () => {
  it("drops bull-board's Google Fonts stylesheet and keeps its own files", () => {
    const template = readFileSync(
      path.join(path.dirname(require.resolve('@bull-board/ui/package.json')), 'dist', 'index.ejs'),
      'utf8',
    );
    const page = withoutOutsideRequests(template);
    expect(page).not.toMatch(OUTSIDE_REFERENCE);
    expect(page).not.toContain('fonts.googleapis.com');
    // The page is otherwise bull-board's: its base, stylesheet, scripts and configuration.
    expect(page).toContain('<base href="<%= basePath %>" />');
    expect(page).toMatch(/<link href="static\/css\/main\.[0-9a-f]+\.css" rel="stylesheet">/);
    expect(page).toMatch(/<script defer src="static\/js\/main\.[0-9a-f]+\.js"><\/script>/);
    expect(page).toContain('<%- uiConfig %>');
    expect(template.length - page.length).toBeLessThan(300);
  });

  it('drops any stylesheet, preconnect or script of another host, and nothing else', () => {
    const html = [
      '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>',
      "<link href='//cdn.example/x.css' rel=stylesheet>",
      '<link rel="icon" href="static/images/logo.svg">',
      '<script src="https://cdn.example/x.js"></script>',
      '<script defer src="static/js/main.js"></script>',
      '<a href="https://github.com/felixmosh/bull-board">bull-board</a>',
    ].join('\n');
    expect(withoutOutsideRequests(html)).toBe(
      [
        '<link rel="icon" href="static/images/logo.svg">',
        '<script defer src="static/js/main.js"></script>',
        '<a href="https://github.com/felixmosh/bull-board">bull-board</a>',
      ].join('\n'),
    );
  });
});
