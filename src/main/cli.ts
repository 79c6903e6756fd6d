#!/usr/bin/env node
import { runCli } from '../cli/program';
import { cliAdapters } from './cli-adapters';

void runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  adapters: cliAdapters,
}).then((code) => {
  process.exitCode = code;
});
