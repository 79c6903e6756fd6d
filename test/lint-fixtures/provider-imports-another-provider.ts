// lint as: src/payments/pix/fixture.ts — one provider's folder reaching into another's.
import { STRIPE_API } from '../stripe/stripe-api';

export const api = STRIPE_API;
