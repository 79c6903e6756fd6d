#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config';
import { startConnector } from './compose';

/** Exit code for a configuration problem (EX_CONFIG in sysexits.h). */
export const EXIT_CONFIG = 78;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`config error: ${problem}\n`);
    process.exit(EXIT_CONFIG);
  }
  const connector = await startConnector(config);
  connector.shutdown.listen();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `connector failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
