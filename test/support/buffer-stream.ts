import { Writable } from 'node:stream';

/** A writable that keeps what it is given, for reading a CLI's stdout and stderr. */
export class BufferStream extends Writable {
  private readonly chunks: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    callback();
  }
  text(): string {
    return this.chunks.join('');
  }
}
