import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generatedFiles, ROOT } from '../../scripts/docs-lib';

/**
 * What `npm run docs` writes from the code (config/.env.example, config/defaults.env, the
 * variables, the shop document's fields and the CLI reference in docs/, each page's contents)
 * is what is committed: a change to the schema, the shop document or a command fails here until
 * `npm run docs` is run, as `npm run docs:check` does.
 */
describe('the generated docs', () => {
  it('are what `npm run docs` writes from the code (run it after changing the code)', async () => {
    const drifted: string[] = [];
    for (const [file, text] of await generatedFiles())
      if (readFileSync(path.join(ROOT, file), 'utf8') !== text) drifted.push(file);
    expect({ drifted, fix: 'npm run docs' }).toEqual({ drifted: [], fix: 'npm run docs' });
  });

  it('list every command of the CLI, from the program itself', async () => {
    const cli = (await generatedFiles()).get('docs/reference/cli.md') ?? '';
    for (const command of ['services list', 'checkout status', 'shops add', 'migrate', 'sync'])
      expect(cli).toContain(`\`connector ${command}\``);
    // The help a command adds after its options (the shop document under shops add) is there.
    expect(cli).toMatch(/The shop document \(JSON; unknown fields are refused\)/);
  });
});
