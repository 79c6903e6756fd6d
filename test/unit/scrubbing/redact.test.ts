import { createRedactor, REDACTED } from '../../../src/scrubbing/redact';

describe('createRedactor', () => {
  const redact = createRedactor(['s3cret-value', 'abc']);

  it('replaces values under secret-sounding keys at any depth', () => {
    expect(
      redact({
        a: 1,
        headers: { Authorization: 'Basic x', 'x-api-key': 'k' },
        list: [{ password: 'p' }],
      }),
    ).toEqual({
      a: 1,
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED },
      list: [{ password: REDACTED }],
    });
  });

  it('scrubs known secret values inside any string, but ignores very short ones', () => {
    expect(redact({ message: 'got s3cret-value twice: s3cret-value', other: 'abc' })).toEqual({
      message: `got ${REDACTED} twice: ${REDACTED}`,
      other: 'abc',
    });
  });

  it('leaves no piece of secrets that overlap in a string', () => {
    const overlapping = createRedactor(['key-part-one', 'part-one-two']);
    expect(overlapping({ message: '<key-part-one-two>' })).toEqual({ message: `<${REDACTED}>` });
  });

  it('survives cycles and keeps errors readable', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    expect(redact(cyclic)).toEqual({ name: 'x', self: '[truncated]' });
    const shaped = redact({ err: new Error('bad s3cret-value') }) as { err: { message: string } };
    expect(shaped.err.message).toBe(`bad ${REDACTED}`);
  });
});
