import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');

/** Where @sparticuz/chromium unpacks its shared libraries. */
const BUNDLED_LIBS = path.join(tmpdir(), 'al2023', 'lib');
/** Where it unpacks its fonts, with a fonts.conf naming them. */
const BUNDLED_FONTS = path.join(tmpdir(), 'fonts');

const OUR_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Which browser the tests drive: CHROMIUM_PATH when set; else Debian's chromium when installed;
 * else (or with TEST_BROWSER=bundled) the chromium the npm package @sparticuz/chromium ships,
 * unpacked to /tmp on first use, so `npm ci && npm test` needs no browser from the system.
 */
export async function browserExecutable(): Promise<{
  path: string;
  args: string[];
  kind: string;
  env?: Record<string, string>;
}> {
  const debian = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (process.env.TEST_BROWSER !== 'bundled' && (process.env.CHROMIUM_PATH || existsSync(debian))) {
    if (!existsSync(debian)) throw new Error(`no browser at CHROMIUM_PATH=${debian}`);
    return { path: debian, args: OUR_FLAGS, kind: 'system' };
  }
  // The package is an ES module, which jest's CommonJS runtime on Node 20 cannot load: a child
  // node unpacks the browser and says where it is and with which flags it runs.
  const script =
    "import c from '@sparticuz/chromium'; console.log(JSON.stringify({ path: await c.executablePath(), args: c.args }))";
  // Named as an AWS runtime, it also unpacks the shared libraries it needs (NSS, expat...) to
  // /tmp/al2023/lib: a machine with no browser installed has none of them.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.join(__dirname, '..', '..'),
    encoding: 'utf8',
    env: { ...process.env, AWS_LAMBDA_JS_RUNTIME: 'nodejs24.x' },
  });
  const bundled = JSON.parse(out) as { path: string; args: string[] };
  return {
    path: bundled.path,
    // Its flags are made for AWS Lambda. Two stay out: one process only would end the browser
    // with the first page closed, and a browser without web security would not test the pages'
    // and the dashboard's (same-origin, Origin and Sec-Fetch-Site checks).
    args: [
      ...bundled.args.filter(
        (arg) => !['--single-process', '--disable-web-security'].includes(arg),
      ),
      ...OUR_FLAGS,
    ],
    kind: 'bundled (@sparticuz/chromium)',
    env: {
      LD_LIBRARY_PATH: [BUNDLED_LIBS, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      // Its own fonts: a machine with no browser installed has no font (text would take no
      // room, and pages would look empty to the tests), nor a fontconfig to find one.
      FONTCONFIG_PATH: BUNDLED_FONTS,
    },
  };
}

/** A headless chromium (see browserExecutable), with the flags this closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  const browser = await browserExecutable();
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: browser.path,
    headless: true,
    args: browser.args,
    ...(browser.env ? { env: { ...process.env, ...browser.env } } : {}),
  });
}
