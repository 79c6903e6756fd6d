import { AppError } from '../errors';
import type { PaymentProvider, WebhookInput } from './payment-provider';

/**
 * A connected shop's provider whose credential the connector renews (an OAuth token): a call
 * the provider refuses with 401 triggers one renewal (`renewed`, which answers the provider
 * built with the credential stored after it, or undefined when there is none to use) and one
 * retry with it. Any other failure, and a second 401, is the caller's as it is.
 */
export function renewingProvider(
  inner: PaymentProvider,
  renewed: () => Promise<PaymentProvider | undefined>,
): PaymentProvider {
  async function once<T>(call: (provider: PaymentProvider) => Promise<T>): Promise<T> {
    try {
      return await call(inner);
    } catch (error) {
      if (!(error instanceof AppError) || error.upstreamStatus !== 401) throw error;
      const next = await renewed();
      if (!next) throw error;
      return call(next);
    }
  }
  const { cancelCheckout, verifyCredentials, refundPayment } = inner;
  return {
    name: inner.name,
    ...(inner.latePaymentNote ? { latePaymentNote: inner.latePaymentNote } : {}),
    ...(inner.unsignedWebhooks ? { unsignedWebhooks: true } : {}),
    ...(inner.returnsLatePayments ? { returnsLatePayments: true } : {}),
    ...(refundPayment
      ? {
          refundPayment: (ref, reason) =>
            once((provider) => provider.refundPayment?.(ref, reason) ?? Promise.resolve(undefined)),
        }
      : {}),
    createCheckout: (request) => once((provider) => provider.createCheckout(request)),
    getStatus: (ref) => once((provider) => provider.getStatus(ref)),
    parseWebhook: (input: WebhookInput) => once((provider) => provider.parseWebhook(input)),
    ...(cancelCheckout
      ? {
          cancelCheckout: (ref) =>
            once(async (provider) => {
              await provider.cancelCheckout?.(ref);
            }),
        }
      : {}),
    ...(verifyCredentials
      ? {
          verifyCredentials: () =>
            once(async (provider) => {
              await provider.verifyCredentials?.();
            }),
        }
      : {}),
  };
}
