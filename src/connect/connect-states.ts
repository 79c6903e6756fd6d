import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors';
import { linkInvalid } from '../payments/connect-flow';
import { DataKey, type Keyring } from '../secrets/secret-box';
import type { ConnectLinkStore, ConnectState } from './ports';
import { requireKeyring } from '../shop-registry/shop-admin-checks';
import type { RegistryStore } from '../shop-registry/ports';

/*
 * The `state` of a connection under way (CONTRACT "Connect and a provider's own endpoints, safe
 * by construction"; RFC 9700 §4.7): 32 random bytes, stored under its hash with its purpose, its
 * provider and the hash of the browser's nonce, so that what comes back from a browser or a
 * provider is checked for its form, its purpose and its browser before anything is done with it.
 */

/** A state, a link's token and a browser's nonce: 32 random bytes, base64url. */
const RANDOM_FORM = /^[A-Za-z0-9_-]{43}$/;

/** The flow a state is of: its purpose and its provider. */
export interface StateFlow {
  purpose: string;
  provider: string;
}

/** 32 random bytes, base64url: a state, or a browser's nonce. */
export function randomValue(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `value` has the form of a state, a link's token or a nonce. */
export function isRandomValue(value: unknown): value is string {
  return typeof value === 'string' && RANDOM_FORM.test(value);
}

/** A value as Redis may name it: its SHA-256, never the value. */
export function hashOf(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function otherBrowser(): AppError {
  return new AppError(
    'CONNECT_OTHER_BROWSER',
    'This connection was started in another browser: open the link again in this one.',
  );
}

/** What a new state binds: its flow, the link, its browser, and the flow's own values. */
export interface NewState {
  flow: StateFlow;
  link: { key: string; shop: string };
  /** The nonce of the browser's cookie (the route makes one when the browser has none). */
  browser: string;
  /** A secret of the flow, stored sealed with the shop's data key. */
  secret?: string;
  account?: string;
}

/** A state as a callback found it, checked, with its secret opened. */
export interface CheckedState {
  hash: string;
  state: ConnectState;
  secret?: string;
}

/** The states of connections under way, with the shop's data key for their secrets. */
export class ConnectStates {
  constructor(
    private readonly deps: {
      links: ConnectLinkStore;
      store: RegistryStore;
      keyring: Keyring | undefined;
    },
  ) {}

  /** A new state for the flow, stored for `ttlMs`; answers the state to hand the provider. */
  async issue(flow: NewState, ttlMs: number): Promise<string> {
    if (!isRandomValue(flow.browser)) throw otherBrowser();
    const state = randomValue();
    const hash = hashOf(state);
    const { shop } = flow.link;
    const sealed =
      flow.secret === undefined
        ? undefined
        : (await this.dataKey(shop)).seal(shop, `connect-state:${hash}`, flow.secret);
    await this.deps.links.putState(
      hash,
      {
        purpose: flow.flow.purpose,
        provider: flow.flow.provider,
        link: flow.link.key,
        shop,
        browser: hashOf(flow.browser),
        ...(sealed === undefined ? {} : { sealed }),
        ...(flow.account === undefined ? {} : { account: flow.account }),
      },
      ttlMs,
    );
    return state;
  }

  /**
   * The state a callback of `flow` names, from the browser whose nonce is `browser`:
   * CONNECT_LINK_INVALID for one of another form, unknown, lapsed or of another purpose (nothing
   * looked up for a value of another form); CONNECT_OTHER_BROWSER, changing nothing, for another
   * browser. Its secret opened.
   */
  async check(
    given: string | undefined,
    flow: StateFlow,
    browser: string | undefined,
  ): Promise<CheckedState> {
    if (!isRandomValue(given)) throw linkInvalid();
    const hash = hashOf(given);
    const state = await this.deps.links.getState(hash);
    if (!state || state.purpose !== flow.purpose || state.provider !== flow.provider) {
      throw linkInvalid();
    }
    if (!isRandomValue(browser) || !sameHash(hashOf(browser), state.browser)) throw otherBrowser();
    if (state.sealed === undefined) return { hash, state };
    try {
      const key = await this.dataKey(state.shop);
      return { hash, state, secret: key.open(state.shop, `connect-state:${hash}`, state.sealed) };
    } catch {
      // The shop was removed (and maybe added again) since: its data key is another.
      throw linkInvalid();
    }
  }

  /** Takes a checked state: false when another callback took it first. */
  async take(checked: CheckedState): Promise<boolean> {
    return (await this.deps.links.takeState(checked.hash)) !== undefined;
  }

  private async dataKey(shop: string): Promise<DataKey> {
    const entry = await this.deps.store.get(shop);
    if (!entry) throw linkInvalid();
    return DataKey.unwrap(requireKeyring(this.deps.keyring), shop, entry.stored.dataKey);
  }
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
