// `npm run docs` writes what is generated from the code: config/.env.example, config/defaults.env,
// the variables, the shop document's fields and the CLI reference in docs/, and each page's table
// of contents. `npm run docs:check` (`--check`) writes nothing and exits 1 naming each file that
// differs from what the code says, and each relative link or #anchor of the docs that lands nowhere.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withCliReference } from './docs/cli';
import { renderDefaultsEnv, renderEnvExample } from './docs/env-files';
import { brokenLinks, withContents } from './docs/markdown';
import { markdownFiles, ROOT } from './docs/pages';
import { withShopFields } from './docs/shop-fields';
import { withVariables } from './docs/variables';

/** The pages with a generated part besides their contents, and what writes it. */
const WRITERS: Record<string, (page: string) => string> = {
  'docs/reference/configuration.md': withVariables,
  'docs/shops.md': withShopFields,
  'docs/reference/cli.md': withCliReference,
};

/** Every file `npm run docs` writes, by its path from the root, with what it must hold. */
function generatedFiles(): Map<string, string> {
  const files = new Map([
    ['config/.env.example', renderEnvExample()],
    ['config/defaults.env', renderDefaultsEnv()],
  ]);
  for (const file of markdownFiles()) {
    const write = WRITERS[file] ?? ((page: string) => page);
    files.set(file, withContents(write(readFileSync(path.join(ROOT, file), 'utf8'))));
  }
  for (const file of Object.keys(WRITERS))
    if (!files.has(file)) throw new Error(`${file} is missing: it holds a generated part`);
  return files;
}

function main(check: boolean): number {
  const files = generatedFiles();
  const drifted = [...files].filter(
    ([file, text]) => readFileSync(path.join(ROOT, file), 'utf8') !== text,
  );
  if (!check) {
    for (const [file, text] of drifted) writeFileSync(path.join(ROOT, file), text);
    const wrote = drifted.map(([file]) => file).join(', ');
    process.stdout.write(`docs: ${wrote ? `wrote ${wrote}` : 'nothing to change'}\n`);
    return 0;
  }
  const problems = [
    ...drifted.map(([file]) => `${file} differs from what the code writes: run npm run docs`),
    ...brokenLinks(new Map([...files].filter(([file]) => file.endsWith('.md')))),
  ];
  for (const problem of problems) process.stderr.write(`docs:check: ${problem}\n`);
  if (problems.length === 0)
    process.stdout.write(
      'docs:check: the generated docs are what the code writes; every link lands\n',
    );
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.includes('--check'));
