// The Node versions the connector supports are package.json's `engines`; `npm ci` on any of them
// must install without a warning: every package in the lock accepts the lowest version of each
// supported line, and every install script is reviewed in `allowScripts`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const root = path.join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; hasInstallScript?: boolean }>;
};

/** The lowest version of each line the range admits: `^22.17.0 || >=24.0.0` gives 22.17.0, 24.0.0. */
const floors = pkg.engines.node.split('||').map((part) => semver.minVersion(part.trim())!.version);

const nameOf = (lockPath: string) => lockPath.slice(lockPath.lastIndexOf('node_modules/') + 13);

describe('the supported Node versions', () => {
  it('are the maintained LTS lines: 22 and 24, not 20 (past its end of life)', () => {
    expect(floors).toEqual(['22.17.0', '24.0.0']);
    expect(semver.satisfies('20.20.2', pkg.engines.node)).toBe(false);
    expect(semver.satisfies('24.21.0', pkg.engines.node)).toBe(true);
  });

  it.each(floors)('%s satisfies every installed package (no EBADENGINE warning)', (version) => {
    const refusing = Object.entries(lock.packages)
      .filter(([lockPath]) => lockPath !== '')
      .flatMap(([lockPath, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range && !semver.satisfies(version, range) ? [`${nameOf(lockPath)} (${range})`] : [];
      });
    expect(refusing).toEqual([]);
  });

  it('every dependency with an install script is reviewed in allowScripts', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([lockPath]) => nameOf(lockPath));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => pkg.allowScripts?.[name] === undefined)).toEqual([]);
  });
});
