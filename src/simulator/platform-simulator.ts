import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import express, { type Express } from 'express';
import type { Logger } from '../infra/logger';
import { controlRoutes } from './simulator-control-routes';
import { SimulatorFaults } from './simulator-faults';
import { platformError, platformRoutes } from './simulator-routes';
import {
  SimulatorState,
  type PaymentEndpoint,
  type RecordedPaymentCall,
  type SimulatorCredentials,
} from './simulator-state';

export interface SimulatorOptions {
  credentials?: SimulatorCredentials;
  serviceCount?: number;
  firstServiceId?: number;
  seed?: number;
  defaultPageSize?: number;
  maxPageSize?: number;
  /** The connector's registered checkout route, for `requestCheckout`. */
  connector?: { checkoutUrl: string; token: string };
  logger?: Logger;
  /** Source of randomness for fault rates (tests may make it deterministic). */
  chance?: () => number;
}

/** Credentials of the demo and of the CLI's `simulator` command when none are given. */
export const DEMO_CREDENTIALS: SimulatorCredentials = {
  email: 'integrador@example.com',
  password: 'demo-password',
  apiKey: 'demo-api-key',
};

export interface CheckoutRequestResult {
  status: number;
  body: unknown;
}

/**
 * A working double of the platform: its API over real HTTP, recorded payment calls, injected
 * faults, and the platform's side of the checkout flow (asking the connector for a checkout).
 * Its `/__simulator` control routes are unauthenticated: keep it on loopback.
 */
export class PlatformSimulator {
  readonly state: SimulatorState;
  readonly faults: SimulatorFaults;
  readonly app: Express;
  /** Every request to /payment/*, faulted or not, in arrival order. */
  readonly arrivals: Array<{ path: string; at: number }> = [];
  private server: Server | undefined;
  private port = 0;
  private host = '127.0.0.1';
  private readonly sockets = new Set<Socket>();
  /** While connections are refused: the timer that listens again, and who waits for it. */
  private reopening: { timer: NodeJS.Timeout; done: () => void } | undefined;
  private connector: SimulatorOptions['connector'];
  private readonly logger: Logger | undefined;

  constructor(options: SimulatorOptions = {}) {
    this.state = new SimulatorState(
      options.credentials ?? DEMO_CREDENTIALS,
      options.seed ?? 42,
      options.firstServiceId ?? 1001,
      options.serviceCount ?? 25,
      options.defaultPageSize ?? 20,
      options.maxPageSize ?? 500,
    );
    this.faults = new SimulatorFaults(options.chance);
    this.connector = options.connector;
    this.logger = options.logger;
    this.app = this.buildApp();
    this.state.onPayment = (call) =>
      this.logger?.info(`platform received ${call.endpoint}`, {
        account: call.account,
        serviceId: call.serviceId,
        status: call.status,
        body: call.body,
      });
  }

  /** Base URL once started, e.g. http://127.0.0.1:4000. */
  get url(): string {
    if (!this.server) throw new Error('simulator not started');
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens on `port` (0 picks a free one) on `host`. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    const server = createServer(this.app);
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.listen(port, host);
    await once(server, 'listening');
    this.server = server;
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : port;
    this.host = host;
    return this.url;
  }

  /**
   * Stops listening and drops every connection and every answer held back; a refusal under way
   * ends with it (the simulator does not listen again by itself).
   */
  async stop(): Promise<void> {
    this.endRefusal();
    await this.closeServer();
  }

  /**
   * Refuses connections for `ms` (closes the port and every open socket), then listens again.
   * Resolves once connections are refused, with `reopened`: resolved once the simulator listens
   * again (or `stop()` ended the refusal), so a test waits for that, not for a time.
   */
  async refuseConnections(ms: number): Promise<{ reopened: Promise<void> }> {
    this.endRefusal();
    await this.closeServer();
    let done = (): void => undefined;
    const reopened = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => {
      this.reopening = undefined;
      this.start(this.port, this.host)
        .catch((error: unknown) => {
          this.logger?.error('simulator could not listen again', { err: String(error) });
        })
        .finally(done);
    }, ms);
    this.reopening = { timer, done };
    return { reopened };
  }

  /** Cancels a refusal's re-listen, releasing whoever waits for it. */
  private endRefusal(): void {
    if (!this.reopening) return;
    clearTimeout(this.reopening.timer);
    this.reopening.done();
    this.reopening = undefined;
  }

  private async closeServer(): Promise<void> {
    this.faults.releaseAll();
    const server = this.server;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Aims the platform's side of the flow at a connector's checkout route. */
  connectTo(connector: { checkoutUrl: string; token: string }): void {
    this.connector = connector;
  }

  /** The latest checkout URL the platform received for a service. */
  checkoutUrlFor(serviceId: number): string | undefined {
    const calls = this.accepted('checkout-url').filter((call) => call.serviceId === serviceId);
    const body = calls.at(-1)?.body as { checkout_url?: string } | undefined;
    return body?.checkout_url;
  }

  /** Payment calls received on `endpoint` that the simulator accepted (2xx). */
  accepted(endpoint: PaymentEndpoint): RecordedPaymentCall[] {
    return this.state.payments.filter((call) => call.endpoint === endpoint && call.status < 300);
  }

  /** The platform's side of step 2: asks the connector's checkout route for a checkout. */
  async requestCheckout(serviceId: number): Promise<CheckoutRequestResult> {
    if (!this.connector) throw new Error('simulator has no connector checkout route configured');
    const response = await fetch(this.connector.checkoutUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${this.connector.token}`,
      },
      body: JSON.stringify({ service_id: serviceId }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Keep the text: the connector should always answer JSON, and a test will say so.
    }
    this.logger?.info('simulator requested a checkout', { serviceId, status: response.status });
    return { status: response.status, body };
  }

  private buildApp(): Express {
    const app = express();
    app.disable('x-powered-by');
    app.use(express.json({ limit: '1mb' }));
    app.use('/__simulator', controlRoutes(this));
    app.use((req, _res, next) => {
      if (req.path.startsWith('/payment/')) this.arrivals.push({ path: req.path, at: Date.now() });
      next();
    });
    app.use(this.faults.middleware());
    app.use(platformRoutes(this.state));
    app.use((_req, res) => platformError(res, 404, 'Resource not found.'));
    app.use(((error, _req, res, _next) => {
      const status = typeof error?.status === 'number' && error.status < 500 ? error.status : 500;
      platformError(res, status, status === 400 ? 'Malformed request body.' : 'Internal error.');
    }) as express.ErrorRequestHandler);
    return app;
  }
}
