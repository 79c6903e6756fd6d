import { z } from 'zod';

/** NODE_ENV and the log's variables: every process reads them. */
export const commonShape = {
  NODE_ENV: z
    .enum(['production', 'development', 'test'])
    .prefault('development')
    .describe(
      '`production`, `development` or `test`. In `production` logs are JSON and unsafe Redis settings refuse to start.',
    ),
  LOG_LEVEL: z
    .enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'])
    .prefault('info')
    .describe(
      'winston level: `error`, `warn`, `info`, `http` (one line per request), `verbose`, `debug`, `silly`.',
    ),
  LOG_FORMAT: z
    .enum(['json', 'pretty'])
    .optional()
    .describe(
      '`json` or `pretty` (default: `pretty` on a terminal outside production, else `json`); `pretty` is in colour on a terminal only, never in a file or a pipe.',
    ),
};

export interface LogConfig {
  level: string;
  format: 'json' | 'pretty';
}

export function logConfig(env: z.infer<z.ZodObject<typeof commonShape>>): LogConfig {
  const pretty = env.NODE_ENV !== 'production' && process.stdout.isTTY === true;
  return { level: env.LOG_LEVEL, format: env.LOG_FORMAT ?? (pretty ? 'pretty' : 'json') };
}
