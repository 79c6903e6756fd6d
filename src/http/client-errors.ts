import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../infra/logger';

/** Node's parser errors that mean the headers were too large. */
const TOO_LARGE = new Set(['HPE_HEADER_OVERFLOW']);

/**
 * Requests Node's HTTP parser cannot read never reach Express; by default Node answers them with
 * a bare 400 or 431 and no body. Here they get the CONTRACT's JSON error and a warning.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or timed out mid-request has no one left to answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = TOO_LARGE.has(error.code ?? '');
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify({
      error: {
        code: tooLarge ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED',
        message: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
        details: [],
      },
    });
    logger.warn('unreadable request', { errCode: error.code, status });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        'cache-control: no-store\r\nconnection: close\r\n\r\n' +
        body,
    );
  });
}
