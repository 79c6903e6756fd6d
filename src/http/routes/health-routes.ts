import { Router } from 'express';
import type { Registry } from 'prom-client';
import { allowOnly } from '../../infra/allow-only';

export interface HealthDeps {
  /** Resolves true when every dependency the process needs (Redis) answers. */
  isReady: () => Promise<boolean>;
  registry: Registry;
}

/** Liveness, readiness and the Prometheus exposition. */
export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
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
  router
    .route('/metrics')
    .get(async (_req, res) => {
      res.type(deps.registry.contentType).send(await deps.registry.metrics());
    })
    .all(allowOnly('GET'));
  return router;
}
