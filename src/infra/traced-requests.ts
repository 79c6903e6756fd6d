import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
} from '@opentelemetry/api';
import type { IncomingMessage, RequestListener } from 'node:http';
import { isTracing, TRACER } from './tracing';

/*
 * The server's requests, each a span of kind SERVER (docs/operating.md, "Following one payment").
 * A request joins the trace its `traceparent` names only once authenticated: the caller says so
 * with credentials the connector checks (the platform's route token, ADMIN_TOKEN), as the
 * composition root's `JoinsCallerTrace` judges them before the span starts. Every other request
 * (a customer's page, a provider's webhook, a refused or unknown one) starts a trace of its own,
 * linked to the one named and sampled by the connector's own sampler, as OpenTelemetry's HTTP
 * conventions advise for a public endpoint: anyone can send a sampled traceparent.
 */

/**
 * Whether a request's credentials open what it asks (`path`, without its query): judged only for
 * a request that carries a traceparent, before its span starts, by the same matchers as its
 * route's authentication.
 */
export type JoinsCallerTrace = (req: IncomingMessage, path: string) => boolean;

/** Requests not traced: the orchestrator's and Prometheus's, many a minute, telling nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Where a request's route is kept for its span, when Express does not route it (the front door). */
const ROUTE = Symbol('connector.route');

type RoutedRequest = IncomingMessage & {
  [ROUTE]?: string;
  route?: { path?: unknown };
  baseUrl?: string;
};

/**
 * The route pattern Express matched for a request (`req.route` under `req.baseUrl`), never its raw
 * path (a query or a connect link may hold a token); undefined where Express matched none.
 */
export function matchedRoute(req: {
  route?: { path?: unknown };
  baseUrl?: string;
}): string | undefined {
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl ?? ''}${pattern}` : undefined;
}

/** A request's route: as Express matched it, or as named for its span. */
function routeOf(req: RoutedRequest): string | undefined {
  return matchedRoute(req) ?? req[ROUTE];
}

/** Names the request's route for its span, for a handler Express does not route. */
export function nameRequestRoute(req: IncomingMessage, route: string): void {
  if (isTracing()) (req as RoutedRequest)[ROUTE] = route;
}

/**
 * The path of a request's URL, without its query; of an absolute-form target
 * (`POST http://host/webhooks/...`, which Express routes by its path too), its path.
 */
export function pathOf(url = ''): string {
  if (!url.startsWith('/')) {
    try {
      return new URL(url).pathname;
    } catch {
      return url;
    }
  }
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Where a request's span belongs: the trace its `traceparent` names when `joins` grants it, else
 * a trace of its own linked to the one named. Most requests carry none: nothing to read, nothing
 * to judge.
 */
function parentOf(
  req: IncomingMessage,
  path: string,
  joins: JoinsCallerTrace | undefined,
): { parent: Context; links?: Link[] } {
  if (req.headers.traceparent === undefined) return { parent: ROOT_CONTEXT };
  const named = propagation.extract(ROOT_CONTEXT, req.headers);
  if (joins?.(req, path)) return { parent: named };
  const remote = trace.getSpanContext(named);
  return {
    parent: ROOT_CONTEXT,
    ...(remote && isSpanContextValid(remote) ? { links: [{ context: remote }] } : {}),
  };
}

/**
 * The server's request listener, each request a span of kind SERVER (see `parentOf` for its
 * trace), active while it is handled, named by its method and route pattern once answered (never
 * the raw path: a connect link's token is in it). The probes and the scrape are not traced. As it
 * is while tracing is off.
 */
export function tracedRequests(
  listener: RequestListener,
  joins?: JoinsCallerTrace,
): RequestListener {
  if (!isTracing()) return listener;
  const tracer = trace.getTracer(TRACER);
  return (req, res) => {
    const path = pathOf(req.url);
    if (UNTRACED_PATHS.has(path)) {
      listener(req, res);
      return;
    }
    const method = req.method ?? 'HTTP';
    const { parent, links } = parentOf(req, path, joins);
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method },
        ...(links ? { links } : {}),
      },
      parent,
    );
    // 'close' comes once, answered or not.
    res.on('close', () => {
      const route = routeOf(req);
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), listener, undefined, req, res);
  };
}
