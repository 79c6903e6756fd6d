import {
  notificationBackoffMs,
  notificationRetryDelayMs,
  RETRY_AFTER_CAP_MS,
} from '../../../src/jobs/retry-schedules';
import { loadConfig } from '../../../src/config';
import path from 'node:path';

const defaults = loadConfig(
  {
    PLATFORM_BASE_URL: 'https://x.example',
    PLATFORM_EMAIL: 'a',
    PLATFORM_PASSWORD: 'b',
    PLATFORM_API_KEY: 'c',
    CHECKOUT_ROUTE_TOKEN: 'x'.repeat(16),
  },
  path.join(__dirname),
);

describe('the notification retry schedule', () => {
  const middle = () => 0.5; // no jitter

  it('retries within seconds at first', () => {
    expect(notificationRetryDelayMs(1, defaults.notify.backoffMs, undefined, middle)).toBe(5_000);
    expect(notificationRetryDelayMs(2, defaults.notify.backoffMs, undefined, middle)).toBe(10_000);
  });

  it('recovers a one-minute outage within about three minutes', () => {
    let elapsed = 0;
    let attempt = 1;
    while (elapsed < 60_000)
      elapsed += notificationRetryDelayMs(attempt++, defaults.notify.backoffMs, undefined, () => 1);
    expect(elapsed).toBeLessThanOrEqual(180_000);
  });

  it('spans at least 72 hours with the default attempts, even with the shortest jitter', () => {
    let total = 0;
    for (let attempt = 1; attempt < defaults.notify.maxAttempts; attempt += 1) {
      total += notificationRetryDelayMs(attempt, defaults.notify.backoffMs, undefined, () => 0);
    }
    expect(total).toBeGreaterThanOrEqual(72 * 3_600_000);
  });

  it('caps each delay at six hours and jitters by at most 20%', () => {
    expect(notificationRetryDelayMs(40, 5000, undefined, middle)).toBe(6 * 3_600_000);
    expect(notificationRetryDelayMs(3, 5000, undefined, () => 0)).toBe(16_000);
    expect(notificationRetryDelayMs(3, 5000, undefined, () => 1)).toBe(24_000);
  });

  it('honours a longer Retry-After, capped at an hour, and never waits less than the schedule', () => {
    expect(notificationBackoffMs(1, 5000, 120_000)).toBe(120_000);
    expect(notificationBackoffMs(1, 5000, 10 * RETRY_AFTER_CAP_MS)).toBe(RETRY_AFTER_CAP_MS);
    expect(notificationBackoffMs(1, 5000, 0)).toBeGreaterThanOrEqual(4000);
  });
});

describe('JOB_LOCK_MS', () => {
  const load = (env: Record<string, string>) =>
    loadConfig(
      {
        PLATFORM_BASE_URL: 'https://x.example',
        PLATFORM_EMAIL: 'a',
        PLATFORM_PASSWORD: 'b',
        PLATFORM_API_KEY: 'c',
        CHECKOUT_ROUTE_TOKEN: 'x'.repeat(16),
        ...env,
      },
      path.join(__dirname),
    );

  it('bounds no job by the platform timeout: a running job renews its lock', () => {
    // A lock shorter than one slow platform call is fine (test/faults/job-locks.test.ts).
    expect(load({ PLATFORM_TIMEOUT_MS: '30000', JOB_LOCK_MS: '10000' }).jobs.lockMs).toBe(10_000);
  });

  it('refuses a lock so short that a late renewal would let a second worker run the job', () => {
    expect(() => load({ JOB_LOCK_MS: '4999' })).toThrow(/JOB_LOCK_MS: must be at least 5000/);
  });
});
