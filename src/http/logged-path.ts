/**
 * A connect link's token: the segment after a `connect` segment, unless it is a word of lowercase
 * letters (a provider's own public URL: `/connect/mercadopago/callback`, `/connect/stripe/return`).
 * Case and repeated slashes do not hide it: routing is exact, but a log line must not lean on that
 * (`/CONNECT/<token>` and `//connect/<token>` are 404s whose path is logged too).
 */
const AFTER_CONNECT = /(^|\/)(connect\/+)([^/]+)/gi;
const PROVIDER_WORD = /^[a-z]+$/;

/**
 * A request's path as every log line writes it (CONTRACT "Connect and a provider's own endpoints,
 * safe by construction"): a connect link's token is the right to connect a shop's payment
 * account, so it is written `:token` (`/connect/:token/start`), whatever was asked under it and
 * whatever the answer. The only path a log line may hold: the access log, the error log and the
 * not-found message all go through here. No other segment of the connector's paths is a secret:
 * shop ids, checkout ids and providers' names are logged as fields anyway.
 */
export function loggedPath(path: string): string {
  return path.replace(AFTER_CONNECT, (whole, start: string, connect: string, segment: string) =>
    PROVIDER_WORD.test(segment) ? whole : `${start}${connect}:token`,
  );
}
