import { Router } from 'express';
import { exactRouter } from '../exact-routes';
import type { Registry } from 'prom-client';
import { allowOnly } from '../allow-only';

export interface HealthDeps {
  /** Resolves true when every dependency the process needs (Redis) answers. */
  isReady: () => Promise<boolean>;
  registry: Registry;
}

/** Liveness, readiness and, unless it has a port of its own, the Prometheus exposition. */
export function healthRoutes(deps: HealthDeps & { serveMetrics: boolean }): Router {
  const router = exactRouter();
  router
    .route('/healthz')
    .get((_req, res) => {
      res.json({ status: 'ok' });
    })
    .all(allowOnly('GET'));
  router
    .route('/readyz')
    .get(async (_req, res) => {
      const ready = await deps.isReady();
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', redis: ready });
    })
    .all(allowOnly('GET'));
  if (deps.serveMetrics) router.use(metricsRoutes(deps.registry));
  return router;
}

export function metricsRoutes(registry: Registry): Router {
  const router = exactRouter();
  router
    .route('/metrics')
    .get(async (_req, res) => {
      res.type(registry.contentType).send(await registry.metrics());
    })
    .all(allowOnly('GET'));
  return router;
}
