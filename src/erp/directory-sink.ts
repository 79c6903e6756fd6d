import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors';
import type { ErpPayment, ErpSink, SinkReceipt } from '../sync/ports';

/**
 * ERP_SINK=directory: one file per service, `<service_id>.json`, for ERPs that import files, and
 * one per payment record (a checkout paid, an incident after it), `payment-<record id>.json`.
 * Written atomically: the JSON goes to a temporary name in the same folder (a dot file ending in
 * `.tmp`, which importers skip), is flushed to disk (fsync), then renamed over the final name,
 * and the folder is fsynced so the rename itself survives a crash. An importer sees either the
 * previous file or the whole new one, never a part. A newer version replaces the file.
 */
export class DirectorySink implements ErpSink {
  readonly kind = 'directory';
  private ready: Promise<void> | undefined;

  constructor(private readonly dir: string) {}

  async deliver(delivery: { serviceId: number; sent: unknown }): Promise<SinkReceipt> {
    await this.write(`${delivery.serviceId}.json`, delivery.sent);
    return {};
  }

  /**
   * A payment record: `payment-<record id>.json`, one file each; its retry writes the same file
   * again, whole.
   */
  async deliverPayment(delivery: { record: ErpPayment }): Promise<void> {
    await this.write(`payment-${delivery.record.record_id}.json`, delivery.record);
  }

  private async write(name: string, value: unknown): Promise<void> {
    try {
      this.ready ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
      await this.ready;
      await this.writeAtomically(name, `${JSON.stringify(value, null, 2)}\n`);
    } catch (error) {
      this.ready = undefined;
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new AppError('ERP_UNAVAILABLE', `ERP export folder: cannot write (${code}).`);
    }
  }

  private async writeAtomically(name: string, text: string): Promise<void> {
    const final = path.join(this.dir, name);
    const temporary = path.join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const file = await open(temporary, 'wx', 0o644);
      try {
        await file.writeFile(text, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, final);
    } catch (error) {
      // Nothing half-written is left behind, under any name.
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    const folder = await open(this.dir, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }
}
