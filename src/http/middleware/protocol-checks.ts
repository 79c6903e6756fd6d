import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '../../errors';

/** Node's own test for the one expectation it serves (lib/_http_server.js). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * What Node's HTTP server would refuse by itself, with a bare 400 or 417 and no body, unless told
 * not to (`requireHostHeader: false`, a `checkExpectation` listener): an HTTP/1.1 request without
 * a Host header (RFC 9112 §3.2: a server must answer it 400), and an Expect other than
 * 100-continue (RFC 9110 §10.1.1: 417). HTTP/1.0 has neither rule, as in Node.
 */
export function protocolProblem(req: IncomingMessage): AppError | undefined {
  if (req.httpVersion !== '1.1') return undefined;
  if (req.headers.host === undefined) {
    return new AppError('VALIDATION_FAILED', 'An HTTP/1.1 request must carry a Host header.', {
      details: [{ field: 'host', problem: 'required' }],
    });
  }
  const expectation = req.headers.expect;
  if (expectation !== undefined && !CONTINUE.test(expectation)) {
    return new AppError('EXPECTATION_FAILED', 'The only expectation served is 100-continue.', {
      details: [{ field: 'expect', problem: 'unsupported' }],
    });
  }
  return undefined;
}

/** Answers such a request in the CONTRACT's shape; the connection closes after it, as Node's would. */
export function protocolChecks(): RequestHandler {
  return (req, res, next) => {
    const problem = protocolProblem(req);
    if (!problem) return next();
    res.setHeader('connection', 'close');
    next(problem);
  };
}
