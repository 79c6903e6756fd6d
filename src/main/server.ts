#!/usr/bin/env node
// First: tracing must start before what it traces is loaded.
import './tracing-start';
import { ConfigError, loadConfig } from '../config';
import { errorMessage } from '../errors';
import { PortInUseError, startConnector } from './compose';
import { EXIT_CONFIG } from './exit-codes';

/** Configuration problems, found before or at start (a Redis that may evict keys): exit 78. */
function exitWithConfigError(error: ConfigError): never {
  for (const problem of error.problems) process.stderr.write(`config error: ${problem}\n`);
  process.exit(EXIT_CONFIG);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) exitWithConfigError(error);
    throw error;
  }
  const connector = await startConnector(config);
  connector.shutdown.listen();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) exitWithConfigError(error);
  // A port in use is its own line: the port, and the variable that moves it.
  process.stderr.write(
    error instanceof PortInUseError
      ? `${error.message}\n`
      : `connector failed to start: ${errorMessage(error)}\n`,
  );
  process.exit(1);
});
