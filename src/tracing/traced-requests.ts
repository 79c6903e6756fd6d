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
 * A request joins the trace its `traceparent` names only once authenticated (the platform's route
 * token, ADMIN_TOKEN: the composition root's `JoinsCallerTrace`). Any other starts a trace of its
 * own, linked to the one named and sampled by the connector's sampler, as OpenTelemetry's HTTP
 * conventions advise for a public endpoint: anyone can send a sampled traceparent.
 */

/** Whether a request's credentials open what it asks (`path`, without its query). */
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
 * The route pattern Express matched for a request, never its raw path (a query or a connect link
 * may hold a token); undefined where Express matched none.
 */
export function matchedRoute(req: {
  route?: { path?: unknown };
  baseUrl?: string;
}): string | undefined {
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl ?? ''}${pattern}` : undefined;
}

/** Names the request's route for its span, for a handler Express does not route. */
export function nameRequestRoute(req: IncomingMessage, route: string): void {
  if (isTracing()) (req as RoutedRequest)[ROUTE] = route;
}

/** The path of a request's target without its query; of an absolute-form target, its path. */
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
 * a trace of its own linked to the one named.
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
 * The server's request listener: each request (the probes and the scrape aside) a span of kind
 * SERVER, active while it is handled, named by its method and route once answered. As it is while
 * tracing is off.
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
    const attributes = { 'http.request.method': method };
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes, links }, parent);
    // 'close' comes once, answered or not.
    res.on('close', () => {
      const route = matchedRoute(req as RoutedRequest) ?? (req as RoutedRequest)[ROUTE];
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
