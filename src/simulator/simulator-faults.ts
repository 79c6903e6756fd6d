import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import { platformError } from './simulator-routes';

/** One injected fault. Rules are checked in order; the first that applies wins. */
export const faultRuleSchema = z.strictObject({
  /** Path prefix the rule applies to, e.g. "/payment/" (default: every platform path). */
  match: z.string().startsWith('/').default('/'),
  method: z.enum(['GET', 'POST', 'PUT']).optional(),
  /** Only requests made with this account (its email, from Basic auth): one shop's trouble. */
  account: z.string().min(1).optional(),
  /** Answer with this status and a DreamFactory error body. */
  status: z.number().int().min(200).max(599).optional(),
  /** With `status`: the Retry-After header, in seconds. */
  retryAfterS: z.number().int().min(0).optional(),
  /** Probability that the rule applies to a matching request. */
  rate: z.number().min(0).max(1).default(1),
  /** Wait this long before answering (normally, or with `status`). */
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  /** Never answer; the socket stays open until the client gives up. */
  hang: z.boolean().optional(),
  /** Destroy the connection without an answer. */
  reset: z.boolean().optional(),
  /** Answer 200 with a body that is not JSON. */
  malformed: z.boolean().optional(),
  /** Apply to this many requests, then remove the rule. */
  times: z.number().int().positive().optional(),
});

export type FaultRule = z.input<typeof faultRuleSchema>;
type ParsedRule = z.output<typeof faultRuleSchema>;

/** The fault rules of a simulator, and the middleware that applies them. */
export class SimulatorFaults {
  private rules: ParsedRule[] = [];
  private readonly hanging = new Set<Response>();
  /** Answers held back by `latencyMs`, each with the timer that will release it. */
  private readonly delayed = new Map<NodeJS.Timeout, Response>();

  constructor(private readonly chance: () => number = Math.random) {}

  /** Adds a rule (validated); returns it as stored. */
  add(rule: FaultRule): ParsedRule {
    const parsed = faultRuleSchema.parse(rule);
    this.rules.push(parsed);
    return parsed;
  }

  /** Removes every rule and releases hanging requests (a delayed answer still comes). */
  clear(): void {
    this.rules = [];
    this.releaseHanging();
  }

  /**
   * Drops every request held here, hanging or delayed, with its socket: nothing of a stopped
   * simulator may answer later, nor keep a timer running after it.
   */
  releaseAll(): void {
    this.releaseHanging();
    for (const [timer, res] of this.delayed) {
      clearTimeout(timer);
      res.socket?.destroy();
    }
    this.delayed.clear();
  }

  list(): readonly ParsedRule[] {
    return this.rules;
  }

  /** Destroys the sockets of requests held by `hang`. */
  releaseHanging(): void {
    for (const res of this.hanging) res.socket?.destroy();
    this.hanging.clear();
  }

  private take(method: string, path: string, account: string | undefined): ParsedRule | undefined {
    const rule = this.rules.find(
      (r) =>
        path.startsWith(r.match) &&
        (!r.method || r.method === method) &&
        (!r.account || r.account === account) &&
        this.chance() < r.rate,
    );
    if (rule?.times !== undefined) {
      rule.times -= 1;
      if (rule.times <= 0) this.rules = this.rules.filter((r) => r !== rule);
    }
    return rule;
  }

  /** Express middleware: applies the first matching rule, or passes the request on. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const rule = this.take(req.method, req.path, basicUser(req.get('authorization')));
      if (!rule) return next();
      const act = (): void => {
        if (rule.hang) {
          this.hanging.add(res);
          res.on('close', () => this.hanging.delete(res));
          return;
        }
        if (rule.reset) {
          req.socket.destroy();
          return;
        }
        if (rule.malformed) {
          res.status(200).type('application/json').send('{"resource": [ this is not json');
          return;
        }
        if (rule.status !== undefined) {
          if (rule.retryAfterS !== undefined)
            res.setHeader('retry-after', String(rule.retryAfterS));
          platformError(res, rule.status, 'Injected fault.');
          return;
        }
        next();
      };
      if (!rule.latencyMs) return act();
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        act();
      }, rule.latencyMs);
      this.delayed.set(timer, res);
    };
  }
}

/** The user name of a Basic authorization header (not checked: the platform's routes check it). */
function basicUser(header: string | undefined): string | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(0, colon);
}
