// `npm run docs` writes what is generated from the code (scripts/docs-lib.ts): config/.env.example,
// config/defaults.env, the variables, the shop document's fields and the CLI reference in docs/,
// and each page's table of contents. `npm run docs:check` (`--check`) writes nothing and exits 1
// naming each file that differs from what the code says.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedFiles, ROOT } from './docs-lib';

async function main(check: boolean): Promise<number> {
  const drifted: string[] = [];
  for (const [file, text] of await generatedFiles()) {
    const target = path.join(ROOT, file);
    if (readFileSync(target, 'utf8') === text) continue;
    drifted.push(file);
    if (!check) writeFileSync(target, text);
  }
  if (check && drifted.length > 0) {
    process.stderr.write(
      `docs:check: ${drifted.join(', ')} differ from what the code writes: run npm run docs\n`,
    );
    return 1;
  }
  process.stdout.write(
    check
      ? 'docs:check: the generated docs are what the code writes\n'
      : `docs: ${drifted.length > 0 ? `wrote ${drifted.join(', ')}` : 'nothing to change'}\n`,
  );
  return 0;
}

void main(process.argv.includes('--check')).then((code) => {
  process.exitCode = code;
});
