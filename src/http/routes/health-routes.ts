import { Router } from 'express';
import type { Registry } from 'prom-client';

export interface HealthDeps {
  /** Resolves true when every dependency the process needs (Redis) answers. */
  isReady: () => Promise<boolean>;
  registry: Registry;
}

/** Liveness, readiness and the Prometheus exposition. */
export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const ready = await deps.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', redis: ready });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(deps.registry.contentType).send(await deps.registry.metrics());
  });
  return router;
}
