// lint as: src/errors.ts — the error catalogue depending on the configuration.
import { loadConfig } from './config';

export const load = loadConfig;
