import type { PlatformAccount } from '../config';
import type { ProviderSettings } from '../payments/provider-fields';

/** What one shop is served with: its platform account and its payment provider. */
export interface ShopSettings {
  id: string;
  name: string;
  /**
   * Which shop of this id it is ('' for the env shop and shops stored before incarnations): its
   * data's keys and its jobs carry it, and a job of another incarnation is dropped.
   */
  incarnation: string;
  /** A disabled shop takes no new checkout; what it has in flight still completes. */
  enabled: boolean;
  /** The shop's platform account (the platform's host is every shop's: PLATFORM_BASE_URL). */
  platform: PlatformAccount;
  provider: ProviderSettings;
  /** Whether a presented route token is this shop's (compared in constant time). */
  tokenMatches(token: string | undefined): boolean;
}

/** Where shops' settings come from: the env shop, and the registry's shops. */
export interface ShopSource {
  /** The shop's settings as they stand; the same object until they change. */
  get(id: string): ShopSettings | undefined;
  ids(): readonly string[];
  /**
   * Reads the shop's stored text now and serves what it says: a change made by any process is
   * honoured from the next request or job on, without waiting for a poll. `stored` is the
   * incarnation stored under the id ('' for one without), undefined when no shop is; `settings`
   * is undefined when none is, or when what is stored does not open here.
   */
  fresh(id: string): Promise<{ settings: ShopSettings | undefined; stored: string | undefined }>;
}
