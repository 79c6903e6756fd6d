import {
  classifyStatus,
  describeNetworkFailure,
  parseRetryAfterMs,
  type AnswerClass,
} from '../../../src/platform/answer-classification';

describe('classifyStatus', () => {
  const table: Array<[number, AnswerClass]> = [
    [200, 'success'],
    [201, 'success'],
    [204, 'success'],
    [301, 'misconfigured'],
    [302, 'misconfigured'],
    [307, 'misconfigured'],
    [400, 'permanent'],
    [401, 'misconfigured'],
    [403, 'misconfigured'],
    [404, 'misconfigured'],
    [408, 'transient'],
    [409, 'permanent'],
    [422, 'permanent'],
    [425, 'transient'],
    [429, 'transient'],
    [500, 'transient'],
    [502, 'transient'],
    [503, 'transient'],
    [504, 'transient'],
  ];
  it.each(table)('%i is %s', (status, expected) => {
    expect(classifyStatus(status)).toBe(expected);
  });
});

describe('describeNetworkFailure', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ECONNRESET', 'connection reset'],
    ['ECONNABORTED', 'timed out'],
    ['ERR_CANCELED', 'timed out'],
    ['ENOTFOUND', 'host name not resolved'],
    ['EWEIRD', 'network error EWEIRD'],
    [undefined, 'network error'],
  ])('%s reads as %s', (code, text) => {
    expect(describeNetworkFailure(code)).toBe(text);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads seconds', () => expect(parseRetryAfterMs('30', now)).toBe(30_000));
  it('reads an HTTP date', () =>
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60_000));
  it('never goes negative', () =>
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0));
  it.each([undefined, '', 'soon', ['5']])('ignores %p', (value) =>
    expect(parseRetryAfterMs(value, now)).toBeUndefined(),
  );
});
