import path from 'node:path';
import type { ErpSinkConfig } from '../config';
import type { Log } from '../log';
import type { ErpSink } from '../sync/ports';
import { namedShop } from '../shop/shop-id';
import { DirectorySink } from './directory-sink';
import { WebhookSink } from './webhook-sink';

/**
 * The sink ERP_SINK names, configured for one shop. The env shop's is as it always was; a
 * registry shop's webhook deliveries name the shop inside what they sign, and its files go to a
 * folder of its own, `ERP_EXPORT_DIR/<shop>/`.
 */
export function createErpSink(config: ErpSinkConfig, log: Log, shop: string): ErpSink {
  const registryShop = namedShop(shop);
  return config.kind === 'webhook'
    ? new WebhookSink({
        url: config.url,
        secret: config.secret,
        timeoutMs: config.timeoutMs,
        log,
        shop: registryShop,
      })
    : new DirectorySink(registryShop ? path.join(config.dir, registryShop) : config.dir);
}
