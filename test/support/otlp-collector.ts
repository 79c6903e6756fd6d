import type { RequestListener } from 'node:http';
import { text } from 'node:stream/consumers';
import { LoopbackFake } from './loopback-server';

/** One span as the collector received it. */
export interface CollectedSpan {
  service: string;
  /** The resource's attributes (its process's: service.name, OTEL_RESOURCE_ATTRIBUTES...). */
  resource: Record<string, string | number | boolean>;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
  /** An error status (2 in OTLP). */
  error: boolean;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

/** OTLP/JSON writes ids in hex; a base64 id (what protobuf's JSON mapping would give) is read too. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function valueOf(value: OtlpValue | undefined): string | number | boolean {
  if (value?.stringValue !== undefined) return value.stringValue;
  if (value?.intValue !== undefined) return Number(value.intValue);
  if (value?.boolValue !== undefined) return value.boolValue;
  return value?.doubleValue ?? '';
}

function attributesOf(list: OtlpKeyValue[] | undefined): CollectedSpan['attributes'] {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/**
 * An OpenTelemetry collector's OTLP/HTTP receiver, written from the OTLP specification (not from
 * the connector's code): `POST /v1/traces` with `application/json` (an ExportTraceServiceRequest,
 * ids in hex), answered `200 {}`; every span kept, with its service's name. `drop` answers 200 and
 * keeps nothing (an exporter that drops everything, for the benchmark).
 */
export class OtlpCollector extends LoopbackFake {
  readonly spans: CollectedSpan[] = [];
  /** Requests that were not OTLP/JSON traces (a protocol left at its default, say). */
  readonly refused: string[] = [];

  constructor(private readonly options: { drop?: boolean } = {}) {
    super();
  }

  /** Every span of one trace. */
  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** The spans whose attribute `key` is `value`. */
  withAttribute(key: string, value: string | number): CollectedSpan[] {
    return this.spans.filter((span) => span.attributes[key] === value);
  }

  private keep(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      const service = String(resource['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            resource,
            traceId: hexId(span.traceId),
            spanId: hexId(span.spanId),
            parentSpanId: span.parentSpanId ? hexId(span.parentSpanId) : undefined,
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map((link) => ({
              traceId: hexId(link.traceId),
              spanId: hexId(link.spanId),
            })),
            error: span.status?.code === 2,
          });
        }
      }
    }
  }

  protected buildApp(): RequestListener {
    return (req, res) => {
      void text(req).then((raw) => {
        const json = (req.headers['content-type'] ?? '').startsWith('application/json');
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !json) {
          this.refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
          res.writeHead(415, { 'content-type': 'application/json' }).end('{}');
          return;
        }
        if (!this.options.drop) this.keep(JSON.parse(raw) as OtlpExport);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    };
  }
}
