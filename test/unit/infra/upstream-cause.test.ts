import { AppError } from '../../../src/errors';
import { errorFields } from '../../../src/infra/logger';
import { jobOutcomeFor } from '../../../src/jobs/run-processor';

/**
 * What an upstream said (a provider's or the platform's error body) is an AppError's cause: in
 * the log, never in the message that answers and failure reasons repeat.
 */
describe("an upstream's words", () => {
  const error = new AppError(
    'PROVIDER_REJECTED',
    'Mercado Pago answered 400 to create the preference.',
    {
      upstreamStatus: 400,
      cause: 'back_urls invalid',
    },
  );

  it('reach the log line of a request or a job, not the message', () => {
    expect(errorFields(error)).toMatchObject({
      errMessage: 'Mercado Pago answered 400 to create the preference.',
      cause: 'back_urls invalid',
    });
  });

  it('go along with a job that fails for good, its reason its code and message alone', () => {
    const { final, thrown } = jobOutcomeFor(error, { attemptsMade: 0, opts: { attempts: 5 } });
    expect(final).toBe(true);
    expect(thrown.message).toBe(
      'PROVIDER_REJECTED: Mercado Pago answered 400 to create the preference.',
    );
    expect(thrown.cause).toBe('back_urls invalid');
  });
});
