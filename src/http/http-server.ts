import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../infra/logger';
import { tracedRequests, type JoinsCallerTrace } from '../tracing/traced-requests';

const TOO_LARGE = new Set(['HPE_HEADER_OVERFLOW']);

/**
 * An HTTP server whose every answer is the CONTRACT's JSON, including the ones Node would write
 * by itself: what its parser cannot read (a bare 400 or 431), an HTTP/1.1 request without Host
 * (a bare 400) and an Expect it does not serve (a bare 417). The last two reach the app instead
 * (`requireHostHeader: false`; `serveRequests` listens for `checkExpectation`), whose protocol
 * checks answer them (middleware/protocol-checks.ts).
 */
export function createHttpServer(options: ServerOptions, logger: Logger): Server {
  const server = createServer({ ...options, requireHostHeader: false });
  answerClientErrors(server, logger);
  return server;
}

/**
 * Hands the server's requests to `listener`, those with an unserved Expect included. With tracing
 * on, each request is a span (src/tracing/traced-requests.ts), in its caller's trace only when
 * `joinsCallerTrace` says its credentials open what it asks.
 */
export function serveRequests(
  server: Server,
  listener: RequestListener,
  joinsCallerTrace?: JoinsCallerTrace,
): void {
  const traced = tracedRequests(listener, joinsCallerTrace);
  server.on('request', traced);
  server.on('checkExpectation', traced);
}

/** Requests Node's parser cannot read never reach Express: the JSON error and a warning here. */
function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or timed out mid-request has no one left to answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = TOO_LARGE.has(error.code ?? '');
    const status = tooLarge ? 431 : 400;
    const requestId = randomUUID();
    const body = JSON.stringify({
      error: {
        code: tooLarge ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED',
        message: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
        details: [],
        request_id: requestId,
      },
    });
    logger.warn('unreadable request', { errCode: error.code, status, requestId });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'cache-control: no-store\r\nconnection: close\r\n\r\n' +
        body,
    );
  });
}
