import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/*
 * What a span says before it leaves the process (CONTRACT "Traces carry no secret"): scrubbed by
 * the logs' own redactor (every secret value the logger knows, a shop's as it is opened, and
 * values under secret-sounding keys), and a URL's query values and the API Pix's key segment
 * replaced. Done on the way to the exporter, in the batch, off the requests' path.
 */

type Redact = (value: unknown) => unknown;

/** The loggers' redactors, each with its book of secrets (src/infra/logger.ts registers them). */
const redactors = new Set<Redact>();

/** Scrubs every span exported from now on with `redact` too (a logger's, with its secrets). */
export function scrubSpansWith(redact: Redact): void {
  redactors.add(redact);
}

/** What OpenTelemetry writes for a value left out (its HTTP instrumentation's own word). */
export const SPAN_REDACTED = 'REDACTED';

/** The attributes holding a URL, a path or a target; `url.query` is a query alone. */
const URL_ATTRIBUTES = new Set(['url.full', 'url.path', 'http.url', 'http.target']);
const QUERY_ATTRIBUTE = 'url.query';

/**
 * The API Pix's paths name the shop's Pix key (`/webhook/{chave}`: a CPF, a CNPJ, an e-mail, a
 * phone, personal data), written as the specification names the segment.
 */
const PIX_KEY_SEGMENT = /\/webhook\/[^/]+/g;

/** A query (without its `?`) with each parameter's name kept and its value REDACTED. */
export function scrubbedQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals === -1 ? pair : `${pair.slice(0, equals)}=${SPAN_REDACTED}`;
    })
    .join('&');
}

/**
 * A URL (or a path, a target) as a span may say it: each query parameter's name with REDACTED
 * for its value (an application key, an ERP's key, a token: no list can know them all), the Pix
 * key's segment `{chave}`, no fragment.
 */
export function scrubbedUrl(url: string): string {
  const hash = url.indexOf('#');
  const end = hash === -1 ? url.length : hash;
  const question = url.indexOf('?');
  const pathEnd = question === -1 || question > end ? end : question;
  const path = url.slice(0, pathEnd).replace(PIX_KEY_SEGMENT, '/webhook/{chave}');
  return pathEnd < end ? `${path}?${scrubbedQuery(url.slice(pathEnd + 1, end))}` : path;
}

function redacted<T>(value: T): T {
  let out: unknown = value;
  for (const redact of redactors) out = redact(out);
  return out as T;
}

/** A span's attributes with the URL rules applied, then the loggers' redactors. */
function scrubbedAttributes(attributes: Attributes): Attributes {
  const urls: Record<string, AttributeValue | undefined> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value !== 'string') urls[key] = value;
    else if (URL_ATTRIBUTES.has(key)) urls[key] = scrubbedUrl(value);
    else urls[key] = key === QUERY_ATTRIBUTE ? scrubbedQuery(value) : value;
  }
  return redacted(urls);
}

/** `span` as it may leave the process: a view of it with its name, texts and attributes scrubbed. */
export function scrubbedSpan(span: ReadableSpan): ReadableSpan {
  const { message } = span.status;
  return Object.assign(Object.create(span) as ReadableSpan, {
    name: redacted(span.name),
    status: message ? { ...span.status, message: redacted(message) } : span.status,
    attributes: scrubbedAttributes(span.attributes),
    events: span.events.map((event) =>
      event.attributes ? { ...event, attributes: scrubbedAttributes(event.attributes) } : event,
    ),
  });
}

/** An exporter that hands `exporter` each batch scrubbed (`scrubbedSpan`). */
export function scrubbingExporter(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
      exporter.export(spans.map(scrubbedSpan), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
