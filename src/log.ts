/** The logging every part of the connector is given; winston's logger fits it. */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): unknown;
  warn(message: string, fields?: Record<string, unknown>): unknown;
  error(message: string, fields?: Record<string, unknown>): unknown;
}
