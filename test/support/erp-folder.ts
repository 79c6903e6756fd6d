import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The payment records the ERP's folder (the directory sink's) holds for `checkoutId`, by event. */
export function recordsIn(dir: string, checkoutId: string): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  for (const record of allRecordsIn(dir)) {
    if (record.checkout_id === checkoutId) found.set(String(record.event), record);
  }
  return found;
}

/** How many records of `checkoutId` the ERP's folder holds, whatever their event. */
export function countIn(dir: string, checkoutId: string): number {
  return allRecordsIn(dir).filter((record) => record.checkout_id === checkoutId).length;
}

function allRecordsIn(dir: string): Array<Record<string, unknown>> {
  return readdirSync(dir)
    .filter((name) => name.startsWith('payment-'))
    .map(
      (name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as Record<string, unknown>,
    );
}
