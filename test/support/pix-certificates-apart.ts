import { rm } from 'node:fs/promises';
import type { PixCertificates } from './pix-certificates';
import { spawnTs } from './spawn-ts';

/*
 * `makePixCertificates` run in a child process (print-pix-certificates.ts). Inside jest's sandbox
 * node-forge signs a certificate in about 1.5 s (some ten times slower than in plain Node), and
 * the set has five: apart, it costs a process's start and under a second of work, beside the
 * suite's own.
 */

type Sent = Omit<PixCertificates, 'remove' | 'clientNotAfter'> & { clientNotAfter: string };

/** A fresh set of Pix mTLS certificates, made by a child process; `remove()` deletes them. */
export async function makePixCertificatesApart(): Promise<PixCertificates> {
  const child = spawnTs('test/support/print-pix-certificates.ts', [], {});
  const code = await child.exited;
  if (code !== 0) throw new Error(`making the certificates failed (${code}): ${child.stderr()}`);
  const sent = JSON.parse(child.stdout()) as Sent;
  return {
    ...sent,
    clientNotAfter: new Date(sent.clientNotAfter),
    remove: () => rm(sent.dir, { recursive: true, force: true }),
  };
}
