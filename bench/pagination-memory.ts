/*
 * Memory of listing 10,000 services: the platform client's page-by-page iterator against a
 * baseline that collects every page first (what a naive integration does). The simulator runs
 * in a child process so its own allocations stay out of this heap. Live heap is sampled after
 * a forced GC at every page. The two run alternately BENCH_REPS times (default 5); the report
 * gives the median peak growth of each, and their ratio only when the streaming peak is above
 * the measurement floor (a growth that rounds to nothing would make any ratio meaningless).
 *
 * Run: npm run bench:pagination
 */
import { createLogger } from '../src/infra/logger';
import { PlatformClient } from '../src/platform/platform-client';
import { median, safeRatio, showRatio } from './bench-support';
import { startSimulatorProcess } from './simulator-process';
import { DEMO_CREDENTIALS } from '../src/simulator/platform-simulator';
import type { ServiceListItem } from '../src/platform/schemas';

const SERVICES = 10_000;
const PAGE_SIZE = 100;
const REPS = Number(process.env.BENCH_REPS ?? 5);
/** Heap growth below this is GC noise, not a measurement. */
const FLOOR_BYTES = 64 * 1024;
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

    const runBaseline = () =>
      measure('baseline: collect all pages', async (onPage) => {
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
    const runStreaming = () =>
      measure('iterateServices (one page at a time)', async (onPage) => {
        let count = 0;
        for await (const item of client.iterateServices({}, { pageSize: PAGE_SIZE, onPage })) {
          if (item.id > 0) count += 1;
        }
        return count;
      });

    const baselines: Array<Awaited<ReturnType<typeof runBaseline>>> = [];
    const streams: Array<Awaited<ReturnType<typeof runStreaming>>> = [];
    for (let rep = 0; rep < REPS; rep++) {
      // Alternate which goes first, so neither always runs on a fuller or emptier heap.
      if (rep % 2 === 0) {
        baselines.push(await runBaseline());
        streams.push(await runStreaming());
      } else {
        streams.push(await runStreaming());
        baselines.push(await runBaseline());
      }
    }
    const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
    const summary = [baselines, streams].map((runs) => ({
      label: runs[0]?.label ?? '',
      count: runs[0]?.count ?? 0,
      peak: median(runs.map((r) => r.peak)),
      ms: median(runs.map((r) => r.ms)),
    }));
    for (const r of summary) {
      console.log(
        `${r.label.padEnd(40)} services=${r.count} median peak live heap growth=${kb(r.peak).padStart(9)} median time=${r.ms} ms`,
      );
    }
    const [base, stream] = summary;
    const ratio =
      stream && stream.peak >= FLOOR_BYTES ? safeRatio(base?.peak ?? NaN, stream.peak) : undefined;
    console.log(
      ratio === undefined
        ? `ratio (baseline peak / streaming peak): n/a, the streaming peak (${kb(stream?.peak ?? 0)}) is below the ${kb(FLOOR_BYTES)} measurement floor; the baseline grew ${kb(base?.peak ?? 0)}`
        : `ratio (baseline peak / streaming peak): ${showRatio(ratio, 1)}x (${REPS} alternating runs, medians)`,
    );
  } finally {
    simulator.stop();
  }
}

void main();
