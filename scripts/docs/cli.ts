// docs/reference/cli.md's list of commands, from the commander program itself: every command,
// depth first, with its `--help` as the CLI prints it. A new command or option shows up by itself.
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import type { CliAdapters } from '../../src/cli/cli-adapters';
import { buildProgram } from '../../src/cli/program';
import { withGenerated } from './markdown';

const CLI_START =
  '<!-- cli:start: generated from the commands (src/cli/) by `npm run docs`; edit the commands -->';
const CLI_END = '<!-- cli:end -->';

/** The width the help is laid out in, and the longest line the page holds. */
const WIDTH = 100;

/** The program `runCli` runs, built with adapters that refuse use: nothing is run or opened. */
function builtProgram(): Command {
  const adapters = new Proxy({} as CliAdapters, {
    get: () => {
      throw new Error('the CLI reference runs no command');
    },
  });
  return buildProgram({ env: {}, stdout: new PassThrough(), stderr: new PassThrough(), adapters });
}

/** A line longer than the page: broken at spaces, continued under its text plus two. */
function wrapped(line: string): string[] {
  if (line.length <= WIDTH) return [line];
  const indent = ' '.repeat((/^ */.exec(line)?.[0].length ?? 0) + 2);
  const lines: string[] = [];
  for (const word of line.trimStart().split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= WIDTH)
      lines[lines.length - 1] = `${last} ${word}`;
    else
      lines.push(last === undefined ? `${line.slice(0, indent.length - 2)}${word}` : indent + word);
  }
  return lines;
}

/** What `<command> --help` prints, laid out in WIDTH columns without colour. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({
    writeOut: (chunk) => {
      text += chunk;
    },
    getOutHelpWidth: () => WIDTH,
    getOutHasColors: () => false,
  });
  command.outputHelp();
  return text.trimEnd().split('\n').flatMap(wrapped).join('\n');
}

/** The commands under `command`, depth first, each with its words from the program's name. */
function commandsOf(
  command: Command,
  words: string[],
): Array<{ words: string[]; command: Command }> {
  return [
    { words, command },
    ...command.commands.flatMap((sub) => commandsOf(sub, [...words, sub.name()])),
  ];
}

/** `page` with its list of commands written afresh: a section per command, its help as printed. */
export function withCliReference(page: string): string {
  const program = builtProgram();
  const out = [CLI_START];
  for (const { words, command } of commandsOf(program, [program.name()])) {
    const level = words.length <= 2 ? '##' : '###';
    out.push('', `${level} \`${words.join(' ')}\``, '', '```text', helpOf(command), '```');
  }
  return withGenerated(page, { start: CLI_START, end: CLI_END }, [...out, '', CLI_END].join('\n'));
}
