/**
 * The reconciler's timing, as the use cases need it: when a checkout that changed is first due
 * for a look, and by when a look has happened. Policy, not storage: the records are given the
 * timestamps it answers.
 */
export interface ReconcileSchedule {
  /** When the reconciler is first due to look at a checkout that changed at `now`. */
  firstLookAt(now: Date): Date;
  /**
   * By when the reconciler has looked at a checkout that changed at `now`, passes keeping up:
   * its first look is due half an interval after, and passes run every interval.
   */
  lookedAtBy(now: Date): Date;
}

/**
 * The schedule of a reconciler whose passes run every `intervalMs`: a checkout that changed is
 * due for a look half an interval after, unless it changes again first (with the next pass
 * within an interval and a pass's budget of 0.8 of one, a lost webhook heals within 2.3
 * intervals, README).
 */
export function reconcileSchedule(intervalMs: number): ReconcileSchedule {
  const firstLookMs = Math.round(intervalMs / 2);
  return {
    firstLookAt: (now) => new Date(now.getTime() + firstLookMs),
    lookedAtBy: (now) => new Date(now.getTime() + firstLookMs + 2 * firstLookMs),
  };
}
