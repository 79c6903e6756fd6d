import { browserExecutable } from './browser';

/**
 * Once, before any test file runs: the browser the tests drive is made ready. The npm-shipped
 * chromium (@sparticuz/chromium, TEST_BROWSER=bundled or no browser installed) unpacks itself to
 * /tmp on first use; two jest workers starting their browser files together would otherwise have
 * one spawn it while the other is still writing it (`spawn ETXTBSY`, seen in CI on Node 24).
 * With a system browser this only checks that it is there.
 */
export default async function globalSetup(): Promise<void> {
  await browserExecutable();
}
