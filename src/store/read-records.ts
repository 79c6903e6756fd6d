import type { RedisCommands } from '../redis/redis';
import type { CheckoutRecord, UnreadableRecord } from '../checkout/checkout-record';
import { readRecord } from './checkout-codec';
import type { CheckoutKeys } from './checkout-keys';

/** Several of a shop's records in one round trip (CheckoutRecords `getMany`). */
export async function readRecords(
  redis: RedisCommands,
  keys: CheckoutKeys,
  checkoutIds: readonly string[],
): Promise<Array<CheckoutRecord | UnreadableRecord | undefined>> {
  if (checkoutIds.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const checkoutId of checkoutIds) pipeline.hgetall(keys.record(checkoutId));
  const answers = (await pipeline.exec()) ?? [];
  return answers.map(([error, fields], i) => {
    if (error) throw error;
    return readRecord(checkoutIds[i] as string, fields as Record<string, string>);
  });
}
