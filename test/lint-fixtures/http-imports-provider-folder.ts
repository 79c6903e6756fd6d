// lint as: src/http/routes/fixture.ts — a route reaching into a provider's folder.
import { STRIPE_API } from '../../payments/stripe/stripe-api';

export const api = STRIPE_API;
