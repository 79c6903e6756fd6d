import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CONTENTS_START, markdownFiles, ROOT } from '../../../scripts/docs/pages';
import { PROVIDERS } from '../../../src/payments/providers';
import { TEST_PROVIDER_LIST } from '../../support/providers';

/**
 * The documentation holds together: README.md is a front page, every page of docs/ has its
 * contents, tables fit 100 columns, and every `*.md` and section the code cites is there. That
 * every relative link and `#anchor` lands (GitHub's anchors) is `npm run docs:check`'s, run by
 * docs-generated.test.ts.
 */
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The files of a folder whose names match, recursively, but what npm installs. */
function filesUnder(dir: string, names: RegExp): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' ? [] : filesUnder(relative, names);
    return names.test(entry.name) ? [relative] : [];
  });
}
const pages = markdownFiles();
const docsPages = pages.filter((file) => file.startsWith('docs/'));

/** A page with its fenced code blocks blanked (their lines kept, so line numbers hold). */
const withoutCode = (text: string) =>
  text.replace(/^ {0,3}(`{3,}|~{3,})[^]*?^ {0,3}\1.*$/gm, (block) => block.replace(/[^\n]/g, ''));

/** The headings of a page, outside code: level and text. */
const headingsOf = (text: string) =>
  [...withoutCode(text).matchAll(/^(#{1,6})\s+(.*?)\s*#*\s*$/gm)].map((m) => ({
    level: (m[1] ?? '').length,
    text: m[2] ?? '',
  }));

/** The links of a page that stay in the repository: `[text](target)` and `[label]: target`. */
function relativeLinksOf(text: string): string[] {
  const prose = withoutCode(text).replace(/`+[^`]*`+/g, '');
  const targets = [
    ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? ''),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] ?? ''),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the docs', () => {
  it('have tables of at most 100 columns (a wider one becomes a list)', () => {
    const wide = [...pages.filter((page) => page !== 'BENCHMARKS.md')].flatMap((page) =>
      withoutCode(read(page))
        .split('\n')
        .flatMap((line, i) =>
          line.trimStart().startsWith('|') && line.length > 100
            ? [`${page}:${i + 1} (${line.length} columns)`]
            : [],
        ),
    );
    expect(wide).toEqual([]);
  });

  it('give each page of docs/ its contents at its top, before its first section', () => {
    for (const page of docsPages) {
      const text = read(page);
      const firstSection = text.search(/^## /m);
      expect({ page, contents: text.indexOf(CONTENTS_START) }).toEqual({
        page,
        contents: expect.any(Number),
      });
      expect({ page, atTop: text.indexOf(CONTENTS_START) < firstSection }).toEqual({
        page,
        atTop: true,
      });
      expect({ page, sections: headingsOf(text).filter((h) => h.level === 2).length }).not.toEqual({
        page,
        sections: 0,
      });
    }
  });

  it('docs/architecture.md names every folder and file at the top of src/', () => {
    const architecture = read('docs/architecture.md');
    const entries = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? `${entry.name}/` : entry.name,
    );
    expect(entries.filter((entry) => !architecture.includes(`  ${entry}`))).toEqual([]);
  });
});

describe('README.md, the front page', () => {
  const readme = read('README.md');

  it('is at most 20,000 characters', () => {
    expect(readme.length).toBeLessThanOrEqual(20_000);
  });

  it('says what it is: the providers, many shops, the Redis topologies', () => {
    // Each provider as the test registry titles it, its descriptor's label in the title.
    for (const row of TEST_PROVIDER_LIST)
      expect(row.title.toLowerCase()).toContain(PROVIDERS[row.name].label.toLowerCase());
    const providers = TEST_PROVIDER_LIST.map((row) => row.title);
    for (const words of [...providers, 'Many shops from one deployment', 'Sentinel', 'Cluster'])
      expect(readme).toContain(words);
  });

  it('gives the two commands before any section', () => {
    const firstSection = readme.search(/^## /m);
    expect(readme.indexOf('npm ci && npm run demo')).toBeGreaterThan(0);
    expect(readme.indexOf('npm ci && npm run demo')).toBeLessThan(firstSection);
    expect(readme.indexOf('npm test')).toBeLessThan(firstSection);
  });

  it('draws the flow and maps the docs: a link to every page of docs/', () => {
    expect(readme).toMatch(/```(text|mermaid)\n[\s\S]*platform[\s\S]*provider[\s\S]*```/);
    const linked = relativeLinksOf(readme).map((link) => link.split('#')[0]);
    expect(docsPages.filter((page) => !linked.includes(page))).toEqual([]);
  });
});

describe('the *.md files the code cites', () => {
  it('are in the repository (src/, test/, bench/, scripts/)', () => {
    const missing: string[] = [];
    let cited = 0;
    const code = (dir: string) => filesUnder(dir, /\.(ts|js|mjs|cjs)$/);
    for (const file of ['src', 'test', 'bench', 'scripts'].flatMap(code)) {
      for (const match of read(file).matchAll(/(?:\.\.\/)*[A-Za-z0-9_][\w./-]*\.md\b/g)) {
        cited += 1;
        const name = match[0];
        const candidates = [name, path.posix.join(path.posix.dirname(file), name)].map((p) =>
          path.posix.normalize(p),
        );
        const found = candidates.some((p) => !p.startsWith('..') && existsSync(path.join(ROOT, p)));
        if (!found) missing.push(`${file}: ${name}`);
      }
    }
    expect(cited).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });
});

describe('the sections the code and the deployment files cite', () => {
  const cited = ['src', 'test', 'bench', 'scripts', 'deploy', '.ci']
    .flatMap((dir) => filesUnder(dir, /\.(ts|js|mjs|cjs|ya?ml|json|sh)$|^(run|[a-z]+-check)$/))
    .concat(['docker-compose.yml', 'Dockerfile', 'lint-layers.cjs', 'eslint.config.mjs'])
    .filter((file) => !file.endsWith('docs-links.test.ts'));
  /** A title as a citation writes it: no code spans, any case. */
  const plain = (title: string) => title.replaceAll('`', '').toLowerCase();
  const titlesOf = (files: string[]) =>
    new Set(files.flatMap((file) => headingsOf(read(file)).map((h) => plain(h.text))));
  const everyTitle = titlesOf(pages);

  it('name a section that exists: README "X" anywhere in the docs, docs/<page>.md "X" in its page', () => {
    const stale: string[] = [];
    let seen = 0;
    for (const file of cited) {
      // A citation may run over a comment's lines, and a JSON string escapes its quotes.
      const text = read(file)
        .replaceAll('\\"', '"')
        .replace(/\s*\n\s*(?:#|\*|\/\/)?\s*/g, ' ');
      for (const [, title] of text.matchAll(/README(?:'s)?,? "([^"]+)"/g)) {
        seen += 1;
        // A pattern in the code that reads such citations, not one.
        if (/[[\]()]/.test(title ?? '')) continue;
        if (!everyTitle.has(plain(title ?? ''))) stale.push(`${file}: README "${title}"`);
      }
      for (const [, page, title] of text.matchAll(/(docs\/[\w/-]+\.md),? "([^"]+)"/g)) {
        seen += 1;
        const titles = existsSync(path.join(ROOT, page ?? '')) ? titlesOf([page ?? '']) : new Set();
        if (!titles.has(plain(title ?? ''))) stale.push(`${file}: ${page} "${title}"`);
      }
    }
    expect(seen).toBeGreaterThan(10);
    expect(stale).toEqual([]);
  });
});
