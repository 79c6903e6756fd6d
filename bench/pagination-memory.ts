/*
 * Memory of listing 10,000 services: the platform client's page-by-page iterator against a
 * baseline that collects every page first (what a naive integration does). The simulator runs
 * in a child process so its own allocations stay out of this heap. Live heap is sampled after
 * a forced GC at every page; the report gives the peak growth of each and their ratio.
 *
 * Run: npm run bench:pagination
 */
import { createLogger } from '../src/infra/logger';
import { PlatformClient } from '../src/platform/platform-client';
import { startSimulatorProcess } from './simulator-process';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import type { ServiceListItem } from '../src/platform/schemas';

const SERVICES = 10_000;
const PAGE_SIZE = 100;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function liveHeap(): number {
  gc!();
  return process.memoryUsage().heapUsed;
}

async function measure(
  label: string,
  run: (onPage: () => void) => Promise<number>,
): Promise<{ label: string; peak: number; count: number; ms: number }> {
  const base = liveHeap();
  let peak = 0;
  const started = Date.now();
  const count = await run(() => {
    peak = Math.max(peak, liveHeap() - base);
  });
  return { label, peak, count, ms: Date.now() - started };
}

async function main(): Promise<void> {
  const simulator = await startSimulatorProcess(SERVICES);
  const client = new PlatformClient({
    baseUrl: simulator.url,
    ...DEMO_CREDENTIALS,
    timeoutMs: 10_000,
    logger: createLogger({ level: 'error', format: 'json', secrets: [] }),
  });
  try {
    // Warm up sockets, JIT and schemas so neither side pays for them.
    for await (const _ of client.iterateServices({}, { pageSize: PAGE_SIZE })) break;

    const baseline = await measure('baseline: collect all pages', async (onPage) => {
      const all: ServiceListItem[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const page = await client.listServices({}, { limit: PAGE_SIZE, offset });
        all.push(...page.items);
        offset = page.next;
        onPage();
      }
      return all.length;
    });
    const streaming = await measure('iterateServices (one page at a time)', async (onPage) => {
      let count = 0;
      for await (const item of client.iterateServices({}, { pageSize: PAGE_SIZE, onPage })) {
        if (item.id > 0) count += 1;
      }
      return count;
    });

    const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
    for (const r of [baseline, streaming]) {
      console.log(
        `${r.label.padEnd(40)} services=${r.count} peak live heap growth=${kb(r.peak).padStart(9)} time=${r.ms} ms`,
      );
    }
    console.log(
      `ratio (baseline peak / streaming peak): ${(baseline.peak / Math.max(streaming.peak, 1)).toFixed(1)}x`,
    );
  } finally {
    simulator.stop();
  }
}

void main();
