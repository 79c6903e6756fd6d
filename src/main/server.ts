#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config';
import { startConnector } from './compose';
import { EXIT_CONFIG } from './exit-codes';

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
