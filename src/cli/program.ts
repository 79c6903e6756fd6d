import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config';
import { AppError, errorMessage } from '../errors';
import { packageVersion } from '../infra/package-version';
import { checkoutCommand } from './checkout-commands';
import { CliFailure, EXIT, type CliIo } from './cli-io';
import { doctorCommand } from './doctor';
import { forTerminal } from './terminal-text';
import { migrateCommand } from './migrate-command';
import { notificationsCommand } from './notifications-commands';
import { servicesCommand } from './services-commands';
import { shopsCommand } from './shops-commands';
import { simulatorCommand } from './simulator-command';
import { syncCommand } from './sync-command';

function configureTree(command: Command, io: CliIo): void {
  command
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  for (const sub of command.commands) configureTree(sub, io);
}

export function buildProgram(io: CliIo): Command {
  const program = new Command('connector')
    .description('checkout connector: the platform, a payment provider and your ERP')
    .version(packageVersion(), '--version', 'print the version');
  program.addCommand(servicesCommand(io));
  program.addCommand(checkoutCommand(io));
  program.addCommand(notificationsCommand(io));
  program.addCommand(syncCommand(io));
  program.addCommand(simulatorCommand(io));
  program.addCommand(migrateCommand(io));
  program.addCommand(shopsCommand(io));
  program.addCommand(doctorCommand(io));
  configureTree(program, io);
  return program;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code; never exits itself. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    // An error may quote stored text: escaped, as everything the CLI prints.
    const say = (line: string) => io.stderr.write(forTerminal(line));
    if (error instanceof CommanderError) {
      const helpShown =
        error.code === 'commander.helpDisplayed' || error.code === 'commander.version';
      return helpShown || error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof ConfigError) {
      for (const problem of error.problems) say(`config error: ${problem}\n`);
      return EXIT.config;
    }
    if (error instanceof CliFailure) {
      say(`error: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof AppError) {
      say(`error: ${error.message} (${error.code})\n`);
      for (const detail of error.details) say(`  ${detail.field}: ${detail.problem}\n`);
      return EXIT.failure;
    }
    say(`error: ${errorMessage(error)}\n`);
    return EXIT.failure;
  }
}
