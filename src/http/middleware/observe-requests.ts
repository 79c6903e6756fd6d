import type { Request, RequestHandler } from 'express';
import type { Logger } from '../../infra/logger';
import type { Metrics } from '../../infra/metrics';

/** The route pattern (never the raw URL, whose query may hold a token) as a metric label. */
function routeLabel(req: Request): string {
  const pattern: unknown = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : 'unmatched';
}

/** Records the duration histogram and writes one access log line per request. */
export function observeRequests(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = routeLabel(req);
      const status = res.statusCode;
      metrics.httpRequestDuration.observe(
        { method: req.method, route, status_code: String(status) },
        seconds,
      );
      if (route === '/healthz' || route === '/readyz' || route === '/metrics') return;
      logger.log(status >= 500 ? 'error' : 'http', 'request handled', {
        method: req.method,
        path: req.path,
        route,
        status,
        durationMs: Math.round(seconds * 1000),
      });
    });
    next();
  };
}
