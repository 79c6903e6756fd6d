import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../../scripts/docs/pages';

/**
 * What `npm run docs` writes from the code (config/.env.example, config/defaults.env, the
 * variables, the shop document's fields and the CLI reference in docs/, each page's contents)
 * is what is committed, and every relative link and #anchor of the docs lands (GitHub's anchors):
 * `npm run docs:check` itself, run as a developer or CI runs it (its markdown libraries are ESM,
 * which jest does not load). A change to the schema, a shop field or a command fails here until
 * `npm run docs` is run.
 */
describe('the generated docs', () => {
  it('are what `npm run docs` writes from the code, and every link lands (npm run docs:check)', async () => {
    const coverage = process.env.CONNECTOR_CHILD_COVERAGE;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--require', 'tsx/cjs', 'scripts/docs.ts', '--check'],
      { cwd: ROOT, env: { ...process.env, ...(coverage && { NODE_V8_COVERAGE: coverage }) } },
    ).catch((error: { stdout: string; stderr: string }) => error);
    expect({ problems: stderr.split('\n').filter(Boolean), fix: 'npm run docs' }).toEqual({
      problems: [],
      fix: 'npm run docs',
    });
    expect(stdout).toMatch(/every link lands/);
  });

  it('list every command of the CLI, from the program itself', () => {
    const cli = readFileSync(path.join(ROOT, 'docs/reference/cli.md'), 'utf8');
    for (const command of ['services list', 'checkout status', 'shops add', 'migrate', 'sync'])
      expect(cli).toContain(`\`connector ${command}\``);
    // The help a command adds after its options (the shop document under shops add) is there.
    expect(cli).toMatch(/The shop document \(JSON; unknown fields are refused\)/);
  });
});
