import { firstWatchAt, nextWatchAt, PIX_WATCH_DAYS } from '../../../src/checkout/pix-watch';

/*
 * The watch's schedule (CONTRACT "Money that stays"): a paid Pix is read a day after its payment,
 * then daily for 14 days, weekly after, and a last time PIX_WATCH_DAYS after it; then never.
 */
const DAY = 86_400_000;
const PAID = Date.parse('2026-12-07T12:00:00.000Z');

/** Every read of one Pix from its first, as the watch makes them (read on time). */
function reads(watchDays: number): number[] {
  const days: number[] = [];
  for (let at: Date | undefined = firstWatchAt(new Date(PAID)); at;) {
    days.push((at.getTime() - PAID) / DAY);
    at = nextWatchAt(PAID, at.getTime(), watchDays);
  }
  return days;
}

describe('the Pix watch schedule', () => {
  it('daily for 14 days, weekly after, a last read on day 92, then none (26 reads)', () => {
    const days = reads(PIX_WATCH_DAYS);
    expect(days.slice(0, 14)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(days.slice(14)).toEqual([21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 92]);
    expect(days).toHaveLength(26);
  });

  it('a read late (a pass behind) counts the next from when it read', () => {
    expect(nextWatchAt(PAID, PAID + 3.5 * DAY, 92)?.getTime()).toBe(PAID + 4.5 * DAY);
    expect(nextWatchAt(PAID, PAID + 20 * DAY, 92)?.getTime()).toBe(PAID + 27 * DAY);
  });

  it('ends at PIX_WATCH_DAYS, whatever it is', () => {
    expect(reads(30).at(-1)).toBe(30);
    expect(nextWatchAt(PAID, PAID + 30 * DAY, 30)).toBeUndefined();
    expect(nextWatchAt(PAID, PAID + DAY, 0)).toBeUndefined();
  });
});
