import type { ErpSinkConfig } from '../config';
import type { ErpSink, SyncLog } from '../sync/ports';
import { DirectorySink } from './directory-sink';
import { WebhookSink } from './webhook-sink';

/** The sink ERP_SINK names, configured. */
export function createErpSink(config: ErpSinkConfig, log: SyncLog): ErpSink {
  return config.kind === 'webhook'
    ? new WebhookSink({ url: config.url, secret: config.secret, timeoutMs: config.timeoutMs, log })
    : new DirectorySink(config.dir);
}
