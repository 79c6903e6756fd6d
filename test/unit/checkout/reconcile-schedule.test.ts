import { reconcileSchedule } from '../../../src/checkout/reconcile-schedule';

describe('reconcile schedule', () => {
  const now = new Date('2026-11-20T12:00:00.000Z');
  const after = (ms: number) => new Date(now.getTime() + ms);

  it('is first due for a look half an interval after a change', () => {
    expect(reconcileSchedule(60_000).firstLookAt(now)).toEqual(after(30_000));
  });

  it('has looked by the first look and the interval after it, passes keeping up', () => {
    // Due at half an interval, looked at by a pass within the next interval (docs/delivery.md's 1.5).
    expect(reconcileSchedule(60_000).lookedAtBy(now)).toEqual(after(90_000));
  });

  it('rounds half an odd interval to the millisecond, as the due line stores it', () => {
    const schedule = reconcileSchedule(301);
    expect(schedule.firstLookAt(now)).toEqual(after(151));
    expect(schedule.lookedAtBy(now)).toEqual(after(453));
  });

  it('does not change the time it is given', () => {
    const given = new Date(now);
    reconcileSchedule(60_000).lookedAtBy(given);
    expect(given).toEqual(now);
  });
});
