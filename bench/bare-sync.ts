/*
 * The baseline of the ERP sync benchmark: a bare loop doing the same platform and disk work as
 * one sync pass into the directory sink, and nothing else: page through GET /services (each
 * status of SYNC_STATUSES), GET each service's detail, write `<id>.json` atomically (temporary
 * file, fsync, rename, folder fsync), CONCURRENCY at a time within a page. No Redis, no queue, no
 * fingerprints. Prints "bare sync done <n> <ms>", then waits for SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';
import axios from 'axios';

const env = process.env as Record<string, string>;
const http = axios.create({
  baseURL: env.PLATFORM_BASE_URL,
  timeout: 10_000,
  httpAgent: new Agent({ keepAlive: true, maxSockets: 50 }),
  headers: {
    authorization: `Basic ${Buffer.from(`${env.PLATFORM_EMAIL}:${env.PLATFORM_PASSWORD}`).toString('base64')}`,
    'x-dreamfactory-api-key': env.PLATFORM_API_KEY,
  },
});
const dir = String(env.ERP_EXPORT_DIR);
const pageSize = Number(env.PLATFORM_PAGE_SIZE ?? 500);
const concurrency = Number(env.WORKER_CONCURRENCY ?? 10);
const statuses = String(env.SYNC_STATUSES ?? '4,6')
  .split(',')
  .map(Number);

async function writeAtomically(name: string, text: string): Promise<void> {
  const temporary = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temporary, 'wx', 0o644);
  await file.writeFile(text, 'utf8');
  await file.sync();
  await file.close();
  await rename(temporary, path.join(dir, name));
  const folder = await open(dir, 'r');
  await folder.sync();
  await folder.close();
}

async function main(): Promise<void> {
  await mkdir(dir, { recursive: true });
  const started = Date.now();
  let written = 0;
  for (const status of statuses) {
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { data: { resource: Array<{ id: number }>; meta: { next: number | null } } } =
        await http.get('/services', { params: { status, limit: pageSize, offset } });
      const ids = page.data.resource.map((item) => item.id);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, ids.length) }, async () => {
          while (next < ids.length) {
            const id = ids[next++] as number;
            const detail = await http.get(`/services/${id}`);
            await writeAtomically(`${id}.json`, `${JSON.stringify(detail.data, null, 2)}\n`);
            written += 1;
          }
        }),
      );
      offset = page.data.meta.next;
    }
  }
  console.log(`bare sync done ${written} ${Date.now() - started}`);
  // Stays until the benchmark has read its CPU and memory.
  setInterval(() => undefined, 1000);
}

process.on('SIGTERM', () => process.exit(0));

void main();
