import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { createRedactor, SecretBook } from '../../../src/scrubbing/redact';
import {
  scrubbedSpan,
  scrubbedUrl,
  scrubbingExporter,
  scrubSpansWith,
} from '../../../src/tracing/span-scrubbing';

/*
 * A span leaves the process scrubbed (src/tracing/span-scrubbing.ts): by the logs' redactor, with
 * the secrets its book holds when the span is exported, and by the URL rules (each query value
 * REDACTED, the API Pix's key segment `{chave}`). The spans of a real process:
 * test/integration/main/tracing-secrets.test.ts.
 */
const SHOP_SECRET = 'shop-secret-5f1e2d3c4b5a';
const LATER_SECRET = 'later-secret-0a9b8c7d6e5f';

function span(attributes: ReadableSpan['attributes'], more: Partial<ReadableSpan> = {}) {
  const context = {
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    traceFlags: TraceFlags.SAMPLED,
  };
  return {
    name: 'PUT',
    kind: SpanKind.CLIENT,
    spanContext: () => context,
    startTime: [1, 0],
    endTime: [2, 0],
    status: { code: SpanStatusCode.UNSET },
    attributes,
    links: [],
    events: [],
    duration: [1, 0],
    ended: true,
    resource: {},
    instrumentationScope: { name: 'test' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...more,
  } as unknown as ReadableSpan;
}

describe('a span as it leaves the process', () => {
  const book = new SecretBook([SHOP_SECRET]);
  scrubSpansWith(createRedactor(book));

  it.each([
    [
      'https://pix.example/v2/webhook/loja%40ipe.example?gw-dev-app-key=k1',
      'https://pix.example/v2/webhook/{chave}?gw-dev-app-key=REDACTED',
    ],
    ['https://pix.example/v2/webhook/%2B5511987654321', 'https://pix.example/v2/webhook/{chave}'],
    [
      'https://erp.example/orders?key=abc&shop=ipe&flag',
      'https://erp.example/orders?key=REDACTED&shop=REDACTED&flag',
    ],
    ['https://erp.example/orders?key=#frag', 'https://erp.example/orders?key=REDACTED'],
    ['https://erp.example/a/b', 'https://erp.example/a/b'],
    ['/v2/cob/abc?x=1', '/v2/cob/abc?x=REDACTED'],
  ])('writes %s as %s', (url, written) => {
    expect(scrubbedUrl(url)).toBe(written);
  });

  it("scrubs attributes, events and the status by the logs' redactor and the URL rules", () => {
    const scrubbed = scrubbedSpan(
      span(
        {
          'url.full': `https://api.example/v1/${SHOP_SECRET}/charges?token=t`,
          'url.query': 'a=1&b',
          'http.request.header.authorization': 'Bearer anything',
          'server.port': 443,
          'connector.note': `said ${SHOP_SECRET}`,
        },
        {
          status: { code: SpanStatusCode.ERROR, message: `failed with ${SHOP_SECRET}` },
          events: [
            {
              name: 'exception',
              time: [1, 5],
              attributes: { 'exception.message': `no ${SHOP_SECRET} here` },
            },
          ],
        },
      ),
    );
    expect(scrubbed.attributes).toEqual({
      'url.full': 'https://api.example/v1/[redacted]/charges?token=REDACTED',
      'url.query': 'a=REDACTED&b',
      'http.request.header.authorization': '[redacted]',
      'server.port': 443,
      'connector.note': 'said [redacted]',
    });
    expect(scrubbed.status.message).toBe('failed with [redacted]');
    expect(scrubbed.events[0]?.attributes).toEqual({ 'exception.message': 'no [redacted] here' });
    expect(scrubbed.spanContext().spanId).toBe('b'.repeat(16));
  });

  it('knows a secret the logger learnt after it was registered (a shop opened later)', async () => {
    book.add([LATER_SECRET]);
    const exported: ReadableSpan[] = [];
    const exporter = scrubbingExporter({
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: 0 });
      },
      shutdown: async () => undefined,
    });
    await new Promise((resolve) =>
      exporter.export([span({ 'connector.note': LATER_SECRET })], resolve),
    );
    expect(exported.map((s) => s.attributes)).toEqual([{ 'connector.note': '[redacted]' }]);
    await exporter.forceFlush?.();
    await exporter.shutdown();
  });
});
