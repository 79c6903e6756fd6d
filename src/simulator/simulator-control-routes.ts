import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { FaultRule, SimulatorFaults } from './simulator-faults';
import { platformError } from './simulator-routes';
import { simulatedShopPage } from './simulator-shop-page';
import type { SimulatorState } from './simulator-state';

/** What the control routes drive of the simulator. */
interface Controlled {
  state: SimulatorState;
  faults: SimulatorFaults;
  requestCheckout(serviceId: number): Promise<unknown>;
  refuseConnections(ms: number): Promise<unknown>;
}

/**
 * The simulator's `/__simulator` routes, unauthenticated (keep it on loopback): the shop's site,
 * the calls received, accounts, faults, refused connections, a service's status, and the
 * platform's side of the checkout flow.
 */
export function controlRoutes(simulator: Controlled): Router {
  const router = Router();
  const { state } = simulator;
  // The shop's site, as the demo stands it in: an account's orders and their payments.
  router.get('/shop', (req, res) => {
    const account = typeof req.query.account === 'string' ? req.query.account : '';
    const name = typeof req.query.name === 'string' ? req.query.name.slice(0, 100) : undefined;
    res.type('html').send(simulatedShopPage(state.payments, account, name));
  });
  router.get('/calls', (req, res) => {
    // ?from=N: only the calls from the N-th on (0-based), for a poller that keeps a cursor.
    const from = Number(req.query.from ?? 0);
    const start = Number.isInteger(from) && from > 0 ? from : 0;
    res.json({ payments: state.payments.slice(start), total: state.payments.length });
  });
  // Another shop's platform account (the platform hands out one per shop).
  router.post('/accounts', (req, res) => {
    const body = bodyOf(accountBody, req, res, '{"email", "password", "apiKey"}');
    if (!body) return;
    state.addAccount(body);
    res.status(201).json({ account: body.email });
  });
  faultRoutes(router, simulator);
  flowRoutes(router, simulator);
  return router;
}

/** A service's status as the platform moves it, and the platform's side of the checkout flow. */
function flowRoutes(router: Router, simulator: Controlled): void {
  // A service moves on in the platform (e.g. to 7, sent to production): the sync sees it.
  router.post('/services/:id/status', (req, res) => {
    const id = Number(req.params.id);
    const body = bodyOf(z.object({ code: positiveInt }), req, res, '{"code": <int>}');
    if (!body) return;
    if (!simulator.state.exists(id)) return platformError(res, 404, 'Record not found.');
    simulator.state.setStatus(id, body.code);
    res.json(simulator.state.listItem(id));
  });
  router.post('/checkout-requests', async (req, res) => {
    const body = bodyOf(z.object({ service_id: positiveInt }), req, res, '{"service_id": <int>}');
    if (!body) return;
    const result = await attempt(() => simulator.requestCheckout(body.service_id));
    if (result instanceof Error) return platformError(res, 502, result.message);
    res.json({ connector: result });
  });
}

/** The faults injected into the platform's answers, and connections refused for a while. */
function faultRoutes(router: Router, simulator: Controlled): void {
  router.get('/faults', (_req, res) => {
    res.json({ faults: simulator.faults.list() });
  });
  router.post('/faults', async (req, res) => {
    const rule = await attempt(() => simulator.faults.add(req.body as FaultRule));
    if (rule instanceof Error) return platformError(res, 400, rule.message);
    res.status(201).json({ fault: rule });
  });
  router.delete('/faults', (_req, res) => {
    simulator.faults.clear();
    res.status(204).end();
  });
  router.post('/refuse', (req, res) => {
    const ms = z.number().int().min(1).max(3_600_000);
    const body = bodyOf(z.object({ ms }), req, res, '{"ms": <milliseconds>}');
    if (!body) return;
    res.status(202).json({ refusingForMs: body.ms });
    res.on('finish', () => void simulator.refuseConnections(body.ms));
  });
}

const positiveInt = z.number().int().positive();
const accountBody = z.object({
  email: z.string().min(1),
  password: z.string().min(1),
  apiKey: z.string().min(1),
});

/** The body as `schema` reads it; else undefined, answered 400 saying the `shape` it must have. */
function bodyOf<T>(schema: z.ZodType<T>, req: Request, res: Response, shape: string) {
  const body = schema.safeParse(req.body);
  if (!body.success) platformError(res, 400, `Body must be ${shape}.`);
  return body.success ? body.data : undefined;
}

/** What `fn` gives, or the error it throws. */
async function attempt<T>(fn: () => T | Promise<T>): Promise<T | Error> {
  try {
    return await fn();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
