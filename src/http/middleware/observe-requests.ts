import type { Request, RequestHandler } from 'express';
import type { Logger } from '../../infra/logger';
import type { Metrics } from '../../infra/metrics';
import { matchedRoute } from '../../tracing/traced-requests';
import { loggedPath } from '../logged-path';

/** The route pattern (never the raw URL, whose query may hold a token) as a metric label. */
function routeLabel(req: Request): string {
  return matchedRoute(req) ?? 'unmatched';
}

/**
 * One handled request: the duration histogram and, except for the probes and the scrape, an
 * access log line. Express's requests (below) and the checkout route's front door both end here.
 */
export function recordRequest(
  logger: Logger,
  metrics: Metrics,
  handled: { method: string; path: string; route: string; status: number; started: bigint },
): void {
  const { method, path, route, status } = handled;
  const seconds = Number(process.hrtime.bigint() - handled.started) / 1e9;
  metrics.httpRequestDuration.observe({ method, route, status_code: String(status) }, seconds);
  if (route === '/healthz' || route === '/readyz' || route === '/metrics') return;
  const level = status >= 500 ? 'error' : 'http';
  // `http` is below the default `info`: the line is not even built then.
  if (!logger.isLevelEnabled(level)) return;
  logger.log(level, 'request handled', {
    method,
    path: loggedPath(path),
    route,
    status,
    durationMs: Math.round(seconds * 1000),
  });
}

export function observeRequests(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      recordRequest(logger, metrics, {
        method: req.method,
        path: req.path,
        route: routeLabel(req),
        status: res.statusCode,
        started,
      });
    });
    next();
  };
}
