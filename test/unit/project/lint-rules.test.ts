import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/spawn-ts';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS, PACKAGE_RULES, FILES } = require('../../../lint-layers.cjs') as {
  LAYERS: Record<string, string[]>;
  PACKAGE_RULES: Record<string, string[]>;
  FILES: string[];
};

interface Fixture {
  name: string;
  filePath: string;
  code: string;
}

/** The import-rule messages of each text, linted as if it stood at its path. */
function lint(fixtures: Fixture[]): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'test', 'support', 'lint-texts.mjs')],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
    child.stdin?.end(JSON.stringify(fixtures));
  });
}

const at = (folder: string) =>
  path.join(ROOT, 'src', FILES.includes(folder) ? `${folder}.ts` : `${folder}/x.ts`);
const importOf = (from: string, to: string) => {
  const up = FILES.includes(from) ? './' : '../';
  return FILES.includes(to) ? `${up}${to}` : `${up}${to}/anything`;
};

// The eslint runs below take seconds alone, 46 s once beside the whole suite on two cores: their
// 180 s is a deadline for a hang, not a speed limit.
describe('the layering rules bite', () => {
  it('has a row for every folder and top-level file of src/', () => {
    const parts = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? entry.name : entry.name.replace(/\.ts$/, ''),
    );
    expect(parts.sort()).toEqual(Object.keys(LAYERS).sort());
  });

  it('fails lint on each rule-breaking fixture file', async () => {
    const dir = path.join(ROOT, 'test', 'lint-fixtures');
    const fixtures = readdirSync(dir).map((name) => {
      const code = readFileSync(path.join(dir, name), 'utf8');
      const as = /^\/\/ lint as: (\S+)/.exec(code)?.[1];
      if (!as) throw new Error(`${name} does not say where to lint it`);
      return { name, filePath: path.join(ROOT, as), code };
    });
    expect(fixtures.length).toBeGreaterThanOrEqual(8);
    const results = await lint(fixtures);
    fixtures.forEach((fixture, i) => {
      expect({ fixture: fixture.name, errors: results[i]?.length }).toEqual({
        fixture: fixture.name,
        errors: 1,
      });
    });
  }, 180_000);

  it('forbids exactly what each row does not allow, and each forbidden package', async () => {
    const fixtures: Array<Fixture & { forbidden: boolean }> = [];
    for (const [from, allowed] of Object.entries(LAYERS)) {
      for (const to of Object.keys(LAYERS)) {
        if (to === from) continue;
        fixtures.push({
          name: `${from} -> ${to}`,
          filePath: at(from),
          code: `import '${importOf(from, to)}';\n`,
          forbidden: !allowed.includes(to),
        });
      }
      for (const pkg of PACKAGE_RULES[from] ?? []) {
        fixtures.push({
          name: `${from} -> ${pkg}`,
          filePath: at(from),
          code: `import '${pkg}';\n`,
          forbidden: true,
        });
      }
    }
    const results = await lint(fixtures);
    const wrong = fixtures.filter((fixture, i) => results[i]!.length > 0 !== fixture.forbidden);
    expect(wrong.map((fixture) => fixture.name)).toEqual([]);
    expect(fixtures.filter((fixture) => fixture.forbidden).length).toBeGreaterThan(60);
  }, 180_000);
});
