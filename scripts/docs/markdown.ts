// The pages as markdown trees (mdast-util-from-markdown): their tables of contents (mdast-util-toc),
// their headings' anchors as GitHub makes them (github-slugger), and the links that miss.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toMarkdown } from 'mdast-util-to-markdown';
import { toc } from 'mdast-util-toc';
import { CONTENTS_END, CONTENTS_START, ROOT } from './pages';

/** Every node of `tree`, depth first. */
function nodesOf(tree: Nodes): Nodes[] {
  return [tree, ...('children' in tree ? tree.children.flatMap(nodesOf) : [])];
}

/** The text of a node, as GitHub slugs it: its text and code, markup dropped. */
function textOf(node: Nodes): string {
  if ('value' in node) return node.value;
  return 'children' in node ? node.children.map(textOf).join('') : '';
}

/** The anchors of a page's headings, as GitHub gives them (a repeat gets `-1`, `-2`...). */
export function anchorsOf(page: string): string[] {
  const slugger = new GithubSlugger();
  return fromMarkdown(page)
    .children.filter((node) => node.type === 'heading')
    .map((heading) => slugger.slug(textOf(heading)));
}

/**
 * `text` with what lies between two markers (the markers included) replaced by `generated`,
 * which starts and ends with them; throws when a marker is missing.
 */
export function withGenerated(
  text: string,
  markers: { start: string; end: string },
  generated: string,
): string {
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start < 0 || end < start)
    throw new Error(`the page lacks ${markers.start} ... ${markers.end}`);
  return text.slice(0, start) + generated + text.slice(end + markers.end.length);
}

/** `page` with its table of contents (its `##` and `###`) written afresh, if it has one. */
export function withContents(page: string): string {
  if (!page.includes(CONTENTS_START)) return page;
  const { map } = toc(fromMarkdown(page), { minDepth: 2, maxDepth: 3, tight: true });
  const list = map ? toMarkdown(map, { bullet: '-', listItemIndent: 'one' }) : '';
  const contents = [CONTENTS_START, '', list.trimEnd(), '', CONTENTS_END].join('\n');
  return withGenerated(page, { start: CONTENTS_START, end: CONTENTS_END }, contents);
}

/** The targets of a page's links, images and link definitions that stay in the repository. */
function relativeLinksOf(tree: Root): string[] {
  return nodesOf(tree)
    .flatMap((node) => ('url' in node ? [node.url] : []))
    .filter((url) => !/^[a-z][a-z0-9+.-]*:/i.test(url));
}

/** Each relative link or `#anchor` of `pages` that lands nowhere, as `page: link (why)`. */
export function brokenLinks(pages: Map<string, string>): string[] {
  const anchors = new Map<string, string[]>();
  const anchorsOfFile = (file: string) => {
    const text = pages.get(file) ?? readFileSync(path.join(ROOT, file), 'utf8');
    return anchors.get(file) ?? anchors.set(file, anchorsOf(text)).get(file) ?? [];
  };
  return [...pages].flatMap(([page, text]) =>
    relativeLinksOf(fromMarkdown(text)).flatMap((link) => {
      const [target = '', anchor] = link.split('#');
      const file = target === '' ? page : path.posix.join(path.posix.dirname(page), target);
      const absolute = path.join(ROOT, file);
      if (file.startsWith('..') || !existsSync(absolute)) return [`${page}: ${link} (no ${file})`];
      if (anchor === undefined) return [];
      const found = statSync(absolute).isFile() ? anchorsOfFile(file) : [];
      return found.includes(anchor) ? [] : [`${page}: ${link} (no #${anchor} in ${file})`];
    }),
  );
}
