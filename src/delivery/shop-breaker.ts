import type { Log } from '../log';
import { AppError } from '../errors';
import type { BreakerRules, BreakerStore } from './ports';

/**
 * Whether an error says the shop's platform account is in trouble (not one request's): the
 * platform unreachable, timing out or answering 408/425/429/5xx, or refusing the account
 * (401, 403, 404 on a path that must exist, 3xx). Each opens the breaker when it repeats.
 */
export function platformTrouble(error: unknown): boolean {
  if (!(error instanceof AppError)) return false;
  return (
    error.code === 'PLATFORM_UNAVAILABLE' || (error.code === 'PLATFORM_REJECTED' && error.retryable)
  );
}

/**
 * Whether an error still shows the platform answering the account: a refusal of this one
 * request (400, 409, 422...) or an answer it could not read. A retryable refusal is trouble.
 */
export function platformAnswered(error: unknown): boolean {
  return (
    error instanceof AppError &&
    error.code.startsWith('PLATFORM_') &&
    !error.retryable &&
    !platformTrouble(error)
  );
}

export interface BreakerSettings {
  /** Failures in a row that open a shop's breaker (SHOP_BREAKER_FAILURES). */
  failures: number;
  /** The first cool-down (SHOP_BREAKER_COOLDOWN_MS), doubled by each failed probe. */
  cooldownMs: number;
}

/** What a job of the shop is told before it calls the shop's platform. */
export type Admission = { kind: 'go'; probe: boolean } | { kind: 'wait'; until: number };

/** How long a shop seen closed is taken as closed without asking Redis again. */
const CLOSED_FOR_MS = 1000;

/** The longest cool-down: an account down for days is still probed every 10 minutes. */
const MAX_COOLDOWN_MS = 600_000;

type Seen = { state: 'closed' | 'counting' | 'open'; atMs: number };

/**
 * A circuit breaker per shop, in Redis (one for every worker process): after `failures` failures
 * in a row the shop's jobs wait, no attempt spent, while other shops' go on; after the cool-down
 * one job probes: an answer closes it, a failure reopens it for twice as long (at most 10
 * minutes). This process keeps what it last saw, sparing Redis a read per job.
 */
export class ShopBreaker {
  private readonly seen = new Map<string, Seen>();
  private readonly rules: BreakerRules;

  constructor(
    private readonly store: BreakerStore,
    settings: BreakerSettings,
    private readonly log: Log,
    private readonly clock: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    const cooldownMs = Math.min(settings.cooldownMs, MAX_COOLDOWN_MS);
    this.rules = {
      threshold: settings.failures,
      cooldownMs,
      maxCooldownMs: MAX_COOLDOWN_MS,
      // Failures further apart than a cool-down are not "in a row".
      windowMs: Math.max(cooldownMs, 60_000),
      // A probe has as long as a cool-down (at least 1 s) before another job may probe.
      probeMs: Math.max(1000, cooldownMs),
    };
  }

  /** Whether a job of the shop may call its platform now, or must wait (and until when). */
  async admit(shop: string): Promise<Admission> {
    const now = this.clock();
    if (this.seenClosed(shop, now)) return { kind: 'go', probe: false };
    const admission = await this.store.admit(shop, now, this.rules);
    switch (admission.kind) {
      case 'closed':
      case 'counting':
        this.seen.set(shop, { state: admission.kind, atMs: now });
        return { kind: 'go', probe: false };
      case 'probe':
        this.seen.set(shop, { state: 'open', atMs: now });
        return { kind: 'go', probe: true };
      case 'open':
        this.seen.set(shop, { state: 'open', atMs: now });
        return { kind: 'wait', until: this.spread(admission.until) };
    }
  }

  /** Whether the shop's breaker is open now (a look only: no probe is taken). */
  async isOpen(shop: string): Promise<boolean> {
    const now = this.clock();
    if (this.seenClosed(shop, now)) return false;
    const state = await this.store.stateOf(shop);
    this.seen.set(shop, { state, atMs: now });
    return state === 'open';
  }

  /** The shop's platform answered: the breaker closes (and says so, when it was open). */
  async answered(shop: string): Promise<void> {
    const last = this.seen.get(shop);
    if (!last || last.state === 'closed') return;
    const wasOpen = await this.store.answered(shop);
    this.seen.set(shop, { state: 'closed', atMs: this.clock() });
    if (wasOpen)
      this.log.info("the shop's platform answers again: its waiting work goes on", {
        shop,
      });
  }

  /**
   * The shop's platform failed a call (`platformTrouble`). Returns when the job should run
   * again, when the breaker is open (the job waits, its attempt not spent); undefined while
   * failures are still being counted (the job's own retry schedule applies).
   */
  async failed(shop: string, probe: boolean): Promise<number | undefined> {
    const now = this.clock();
    const failure = await this.store.failed(shop, now, this.rules, probe);
    if (failure.kind === 'counting') {
      this.seen.set(shop, { state: 'counting', atMs: now });
      return undefined;
    }
    this.seen.set(shop, { state: 'open', atMs: now });
    if (failure.opens === 1) {
      this.log.error(
        "the shop's platform keeps failing: its finish/cancel deliveries wait for it, other shops go on",
        { shop, probeInMs: failure.cooldownMs },
      );
    } else if (failure.opens > 1) {
      this.log.warn("the shop's platform still fails: the next probe waits longer", {
        shop,
        probes: failure.opens - 1,
        probeInMs: failure.cooldownMs,
      });
    }
    return this.spread(failure.until);
  }

  /**
   * The shops whose breaker is open, of those this process has seen open: each read again, since
   * another process's probe may have closed it (the gauge reads them at each scrape).
   */
  async openShops(): Promise<string[]> {
    const seenOpen = [...this.seen].flatMap(([shop, seen]) =>
      seen.state === 'open' ? [shop] : [],
    );
    const states = await Promise.all(seenOpen.map((shop) => this.store.stateOf(shop)));
    const now = this.clock();
    return seenOpen.filter((shop, i) => {
      const state = states[i] ?? 'open';
      if (state !== 'open') this.seen.set(shop, { state, atMs: now });
      return state === 'open';
    });
  }

  /** Whether this process saw the shop's breaker closed within the last second. */
  private seenClosed(shop: string, now: number): boolean {
    const last = this.seen.get(shop);
    return last?.state === 'closed' && now - last.atMs < CLOSED_FOR_MS;
  }

  /**
   * A moment a little after `until` (up to a fifth of the cool-down, at most 30 s more), so the
   * jobs that waited do not all come back in the same millisecond.
   */
  private spread(until: number): number {
    return Math.round(until + this.random() * Math.min(30_000, this.rules.cooldownMs / 5));
  }
}
