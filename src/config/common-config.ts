import { z } from 'zod';

/** NODE_ENV and the log's variables: every process reads them. */
export const commonShape = {
  NODE_ENV: z.enum(['production', 'development', 'test']),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
};

export interface LogConfig {
  level: string;
  format: 'json' | 'pretty';
}

export function logConfig(env: z.infer<z.ZodObject<typeof commonShape>>): LogConfig {
  const pretty = env.NODE_ENV !== 'production' && process.stdout.isTTY === true;
  return { level: env.LOG_LEVEL, format: env.LOG_FORMAT ?? (pretty ? 'pretty' : 'json') };
}
