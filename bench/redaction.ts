/*
 * Log scrubbing with many shops' secrets known, against none, side by side in one run
 * (alternating, BENCH_REPS repetitions, the median):
 *
 *   no shops:    the logger's redactor (createRedactor over a SecretBook) with no secret known.
 *   many shops:  the same redactor with BENCH_SHOPS (10,000) shops' secrets known, five a shop of
 *                realistic lengths (platform password and API key, the base64 of the platform's
 *                Basic credentials, a Mercado Pago access token, a webhook secret), added one
 *                shop at a time as the registry opens them.
 *
 * Each side scrubs BENCH_LINES log records of 1 kB a repetition: the fields of a request's line
 * (ids, URL, user agent, a stack), one of them carrying one of the shops' secrets. A second record,
 * 1 kB of random key characters (the worst case for a trie of random keys), is reported too.
 * Reported: microseconds per line (target at most 50 at 10,000 shops), the ratio to no shops,
 * the time to add the secrets and to build the automaton on the first line after, its memory, and
 * the time to open the shops one at a time with a line scrubbed after each (as at LOG_LEVEL=info).
 * Exits 1 when a target is missed.
 * Run: npm run bench:redaction   (BENCH_REPS=9 BENCH_LINES=5000 BENCH_SHOPS=10000)
 * Timed in CPU time of this process (process.cpuUsage), the cost of a line: on a shared machine
 * wall time also counts the turns other processes take on the cores.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createRedactor, SecretBook } from '../src/scrubbing/redact';
import { SecretScanner } from '../src/scrubbing/secret-scanner';
import { median, reportTargets, safeRatio, showRatio } from './bench-support';

const REPS = Number(process.env.BENCH_REPS ?? 9);
const LINES = Number(process.env.BENCH_LINES ?? 5000);
const SHOPS = Number(process.env.BENCH_SHOPS ?? 10_000);
const TARGET_US = 50;

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const key = (length: number) =>
  Array.from({ length }, () => KEY_CHARS[randomInt(KEY_CHARS.length)]).join('');

/** One shop's secrets, as the registry hands them to the logger when it opens the shop. */
function shopSecrets(shop: number): string[] {
  const email = `financeiro@loja-${shop}.example.com.br`;
  const password = key(12 + randomInt(12));
  return [
    password,
    key(32),
    Buffer.from(`${email}:${password}`).toString('base64'),
    `APP_USR-${randomInt(1e6, 9e6)}${randomInt(1e8, 9e8)}-112609-${randomBytes(16).toString('hex')}-${randomInt(1e8, 9e8)}`,
    randomBytes(32).toString('hex'),
  ];
}

/** A request's log record of about 1 kB as the logger's format sees it, with one secret in it. */
function logRecord(secret: string): Record<string, unknown> {
  const record = {
    level: 'warn',
    message: 'platform answered with an error',
    timestamp: new Date().toISOString(),
    component: 'api',
    requestId: randomUUID(),
    shop: 'loja-0042',
    checkoutId: randomUUID(),
    serviceId: 123456789012,
    provider: 'mercadopago',
    method: 'POST',
    path: '/shops/loja-0042/checkout',
    url: `https://api.mercadopago.com/checkout/preferences/${randomInt(1e8, 9e8)}-${randomUUID()}`,
    userAgent:
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    upstreamStatus: 503,
    durationMs: 412.7,
    errMessage: `upstream refused the credentials ${secret} for this account`,
    stack: [
      'Error: upstream answered 503',
      '    at PlatformClient.request (/app/dist/platform/platform-client.js:120:15)',
      '    at async produceCheckout (/app/dist/checkout/produce-checkout.js:44:9)',
      '    at async Worker.processJob (/app/node_modules/bullmq/dist/cjs/classes/worker.js:455:28)',
    ].join('\n'),
  };
  return { ...record, note: 'x'.repeat(Math.max(0, 1024 - JSON.stringify(record).length - 10)) };
}

/** CPU microseconds per call of `scrub` on `record`, over LINES calls. */
function timePerLine(scrub: (value: unknown) => unknown, record: unknown): number {
  const started = process.cpuUsage();
  for (let line = 0; line < LINES; line++) scrub(record);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / LINES;
}

/** The start of a process at LOG_LEVEL=info: each shop's secrets added, then a line scrubbed. */
function openShopsWithALineEach(secrets: readonly string[][]): { ms: number; builtValues: number } {
  const book = new SecretBook();
  const scanner = new SecretScanner(book);
  const started = process.hrtime.bigint();
  secrets.forEach((values, shop) => {
    book.add(values);
    scanner.replace(`shop served loja-${shop}`, '[redacted]');
  });
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, builtValues: scanner.builtValues };
}

function main(): void {
  const book = new SecretBook();
  const secrets: string[][] = [];
  for (let shop = 0; shop < SHOPS; shop++) secrets.push(shopSecrets(shop));
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  collect();
  const buffersBefore = process.memoryUsage().arrayBuffers;
  const addStarted = process.hrtime.bigint();
  for (const values of secrets) book.add(values);
  const addMs = Number(process.hrtime.bigint() - addStarted) / 1e6;
  const sides = {
    'no shops': createRedactor(new SecretBook()),
    'many shops': createRedactor(book),
  };
  const realistic = logRecord(secrets[Math.floor(SHOPS / 2)]?.[3] ?? 'no-shop-secret');
  const scrubbed = JSON.stringify(sides['many shops'](realistic)); // builds the automaton
  const buildMs = Number(process.hrtime.bigint() - addStarted) / 1e6 - addMs;
  collect(); // what the automaton keeps, not what its build threw away
  const automatonMb = (process.memoryUsage().arrayBuffers - buffersBefore) / 1024 / 1024;
  if (SHOPS > 0 && !scrubbed.includes('[redacted]')) throw new Error('the secret was not scrubbed');
  const worst = { line: key(1024) };

  const runs = { 'no shops': [] as number[], 'many shops': [] as number[] };
  const worstRuns = { 'no shops': [] as number[], 'many shops': [] as number[] };
  for (const side of Object.keys(sides) as (keyof typeof sides)[]) {
    timePerLine(sides[side], realistic); // warm-up, not counted
  }
  for (let rep = 0; rep < REPS; rep++) {
    const order =
      rep % 2 === 0 ? (['no shops', 'many shops'] as const) : (['many shops', 'no shops'] as const);
    for (const side of order) {
      runs[side].push(timePerLine(sides[side], realistic));
      worstRuns[side].push(timePerLine(sides[side], worst));
    }
  }

  const fmt = (us: number) => `${us.toFixed(1)} us`;
  const many = median(runs['many shops']);
  const none = median(runs['no shops']);
  console.log(
    `\nLog scrubbing: ${REPS} repetitions alternating, ${LINES} lines each, medians; Node ${process.version}`,
  );
  console.log(
    `  ${SHOPS} shops' secrets (${book.values().size} values) added in ${addMs.toFixed(1)} ms; the automaton built on the next line in ${buildMs.toFixed(0)} ms, ${automatonMb.toFixed(1)} MB`,
  );
  console.log(
    `  a 1 kB request line:    no shops ${fmt(none)}, ${SHOPS} shops ${fmt(many)} a line (target <= ${TARGET_US} us), ratio ${showRatio(safeRatio(many, none))}`,
  );
  console.log(
    `  1 kB of key characters: no shops ${fmt(median(worstRuns['no shops']))}, ${SHOPS} shops ${fmt(median(worstRuns['many shops']))} a line (the worst case; no target)`,
  );
  const burst = openShopsWithALineEach(secrets);
  console.log(
    `  ${SHOPS} shops opened one at a time, a line scrubbed after each (the registry's "shop served" at info): ${burst.ms.toFixed(0)} ms, ${(burst.builtValues / book.values().size).toFixed(1)} builds per value`,
  );
  reportTargets([
    { name: `a 1 kB line at ${SHOPS} shops within ${TARGET_US} us`, met: many <= TARGET_US },
  ]);
}

main();
