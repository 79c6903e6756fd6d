import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { exactRouter } from '../exact-routes';
import { postedFromAnotherSite, widenFormAction } from '../same-site';
import type { CheckoutDeps } from '../../checkout/checkout-deps';
import { inCheckoutTrace } from '../../checkout/checkout-deps';
import { isCheckoutId, type CheckoutRecord } from '../../checkout/checkout-record';
import {
  isPaidPart,
  isPlanned,
  partCheckoutsOf,
  planStatus,
  startPart,
} from '../../checkout/plan-checkout';
import type { ShopDirectory } from '../../checkout/shop-directory';
import { errorMessage } from '../../errors';
import { messagePage, notFoundPage } from '../../html/page-layout';
import type { Logger } from '../../infra/logger';
import type { ProviderModule } from '../../payments/provider-module';
import type { ShopSettings } from '../../shop-registry/shop-settings';
import { planPage, type PlanPageView, type PlanPartView } from '../pages/plan-page';

/** A shop as its payment page sees it: its checkouts, what it offers, its storefront. */
export interface PlanShop {
  deps: CheckoutDeps;
  providerModule: Pick<ProviderModule, 'pageNotice'>;
  settings: Pick<ShopSettings, 'storefront'>;
}

/** How long a customer is asked to wait when the page cannot be read now (Redis away). */
const RETRY_AFTER_SECONDS = 30;

/**
 * The connector's own payment page (CONTRACT "The payment page"): `GET /pay/:checkoutId`, the
 * plan and its parts, and `POST /pay/:checkoutId/start`, a choice, answered with a redirect to
 * the part's checkout at its provider, or the page again saying why not. Every answer is a pt-BR
 * page, never JSON: an unknown id 404, a refused choice 4xx, a failure 503 with `Retry-After`.
 */
export function planRoutes(
  shops: Pick<ShopDirectory<PlanShop>, 'byCheckout'>,
  logger: Logger,
  /** The notice of a page no shop answers (an unknown id): the deployment's, if it has one. */
  defaultNotice?: string,
  /** Where a choice's redirect may lead besides https (PROVIDER_API_ORIGINS: a loopback fake). */
  providerOrigins: readonly string[] = [],
  /** PUBLIC_URL: the origin the page's form posts from, behind a proxy. */
  publicUrl?: string,
): Router {
  const router = exactRouter();
  const publicOrigin = publicUrl && URL.canParse(publicUrl) ? new URL(publicUrl).origin : undefined;
  const pay = { shops, logger, defaultNotice, providerOrigins, publicOrigin };
  router.route('/pay/:checkoutId').get(asPage(pay, showPlan)).all(notAllowed(pay, 'GET'));
  router
    .route('/pay/:checkoutId/start')
    .post(choiceBody(pay), asPage(pay, startChoice))
    .all(notAllowed(pay, 'POST'));
  // Any other path under /pay is a customer's mistyped link: a page, not JSON.
  router.use('/pay', (_req, res) => notFound(res, pay));
  return router;
}

/** Another method than the route's: 405 with `Allow`, as a page (OPTIONS: 204). */
function notAllowed(pay: Pay, method: 'GET' | 'POST'): RequestHandler {
  const allow = method === 'GET' ? 'GET, HEAD' : 'POST';
  return (req, res) => {
    res.setHeader('allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    const text = 'Abra o link de pagamento que a loja enviou.';
    res
      .status(405)
      .type('html')
      .send(messagePage('Endereço de pagamento', text, pay.defaultNotice));
  };
}

interface Pay {
  shops: Pick<ShopDirectory<PlanShop>, 'byCheckout'>;
  logger: Logger;
  defaultNotice: string | undefined;
  providerOrigins: readonly string[];
  publicOrigin: string | undefined;
}

type PageHandler = (req: Request, res: Response, pay: Pay) => Promise<void>;

/** A handler whose failure is a page (503, `Retry-After`), logged, never JSON. */
function asPage(pay: Pay, handler: PageHandler): RequestHandler {
  return (req, res) => {
    handler(req, res, pay).catch((error: unknown) => {
      pay.logger.warn('the payment page could not be answered', {
        path: '/pay/:checkoutId',
        errMessage: errorMessage(error),
      });
      unavailable(res, pay.defaultNotice);
    });
  };
}

function unavailable(res: Response, notice: string | undefined): void {
  const text = 'Não foi possível abrir o pagamento neste momento. Tente de novo em instantes.';
  res
    .status(503)
    .setHeader('retry-after', String(RETRY_AFTER_SECONDS))
    .type('html')
    .send(messagePage('Pagamento indisponível', text, notice, 'Pagamento indisponível agora'));
}

/** The choice's form (three short fields): a body too large or malformed is a page too. */
function choiceBody(pay: Pay): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 10 });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (!error) return next();
      const status = (error as { status?: number }).status;
      pay.logger.warn('a payment page choice did not read as a form', {
        errMessage: errorMessage(error),
      });
      const text = 'Volte à página do pedido e escolha de novo.';
      res
        .status(status === 413 ? 413 : 400)
        .type('html')
        .send(messagePage('Escolha não recebida', text, pay.defaultNotice));
    });
  };
}

/** The shop and the planned checkout a page's id names; undefined when none does. */
async function plannedOf(
  pay: Pay,
  checkoutId: unknown,
): Promise<{ shop: PlanShop; record: CheckoutRecord } | undefined> {
  if (!isCheckoutId(checkoutId)) return undefined;
  const shop = await pay.shops.byCheckout(checkoutId);
  const record = shop ? await shop.deps.store.get(checkoutId) : undefined;
  return shop && record && isPlanned(record) ? { shop, record } : undefined;
}

function notFound(res: Response, pay: Pay, shop?: PlanShop): void {
  res
    .status(404)
    .type('html')
    .send(notFoundPage(shop ? shop.providerModule.pageNotice : pay.defaultNotice));
}

/** The page's view of a planned checkout, from its parts as they stand. */
export async function planView(
  deps: CheckoutDeps,
  record: CheckoutRecord,
  storefront: PlanShop['settings']['storefront'],
): Promise<PlanPageView | undefined> {
  if (!isPlanned(record) || !record.amount) return undefined;
  const { currency } = record.amount;
  const money = (amountMinor: number) => ({ amountMinor, currency });
  const status = planStatus(record.plan, await partCheckoutsOf(deps, record));
  const ended = record.outcome !== undefined && record.outcome !== 'paid';
  const firstDue = status.findIndex((part) => !isPaidPart(part));
  const { methods = [], maxInstallments = 1 } = deps.offered ?? {};
  const choices = methods.map((method) =>
    method === 'card' && maxInstallments > 1 ? { method, maxInstallments } : { method },
  );
  const parts = status.map((part, i): PlanPartView => {
    const paid = isPaidPart(part);
    // A plan that ended undone gave back what it was paid.
    const state =
      ended && part.returned.length > 0
        ? 'refunded'
        : paid
          ? 'paid'
          : ended
            ? 'expired'
            : part.processing
              ? 'processing'
              : 'due';
    const paying = part.processing?.method;
    return {
      part: part.part,
      amount: money(part.amountMinor),
      state,
      ...(part.dueDate ? { dueDate: part.dueDate } : {}),
      methods: choices,
      ...(record.plan.splitTender && part.paidMinor === 0 ? { splitTender: true } : {}),
      ...(paying ? { paying } : {}),
      ...(!paid && !ended && part.paidMinor > 0 ? { paidSoFar: money(part.paidMinor) } : {}),
      ...(part.processing?.url ? { resumeUrl: part.processing.url } : {}),
      ...(!paid && i > firstDue ? { later: true } : {}),
    };
  });
  return {
    checkoutId: record.checkoutId,
    serviceId: record.serviceId,
    storefront,
    order: record.amount,
    parts,
  };
}

/** The page, as the record stands (`problem`: why the last choice was not taken). */
async function sendPlan(
  res: Response,
  pay: Pay,
  found: { shop: PlanShop; record: CheckoutRecord },
  status = 200,
  problem?: string,
): Promise<void> {
  const { shop, record } = found;
  const view = await planView(shop.deps, record, shop.settings.storefront);
  if (!view) throw new Error(`checkout ${record.checkoutId} has no plan to show`);
  // The form's POST carries this page's Origin (the same-site check).
  res.setHeader('referrer-policy', 'same-origin');
  // A choice is answered with a redirect to the provider's page, which the browser checks
  // against this page's form-action.
  widenFormAction(res, pay.providerOrigins);
  res
    .status(status)
    .type('html')
    .send(planPage(problem ? { ...view, problem } : view));
}

/** `GET /pay/:checkoutId`. */
const showPlan: PageHandler = async (req, res, pay) => {
  const found = await plannedOf(pay, req.params.checkoutId);
  if (!found) return notFound(res, pay);
  await sendPlan(res, pay, found);
};

/** `POST /pay/:checkoutId/start`: to the part's checkout (303), or the page saying why not. */
const startChoice: PageHandler = async (req, res, pay) => {
  // Only the payment page itself makes choices: a page elsewhere could otherwise start payments
  // of a customer's order in their browser.
  if (postedFromAnotherSite(req, pay.publicOrigin)) {
    pay.logger.warn('a payment page choice came from another site; refused');
    const text = 'Abra o link de pagamento que a loja enviou e escolha ali.';
    res
      .status(403)
      .type('html')
      .send(messagePage('Escolha não aceita', text, pay.defaultNotice));
    return;
  }
  const found = await plannedOf(pay, req.params.checkoutId);
  if (!found) return notFound(res, pay);
  const { shop, record } = found;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const choice = { part: body.part, method: body.method, amount: body.amount };
  const started = await inCheckoutTrace(shop.deps, record, 'checkout part start', () =>
    startPart(shop.deps, record.checkoutId, choice),
  );
  if (started.kind === 'gone') return notFound(res, pay, shop);
  if (started.kind === 'refused') {
    pay.logger.info('a payment page choice was refused', {
      checkoutId: record.checkoutId,
      status: started.status,
      problem: started.problem,
    });
    const now = (await shop.deps.store.get(record.checkoutId)) ?? record;
    return sendPlan(res, pay, { shop, record: now }, started.status, started.problem);
  }
  res.redirect(303, started.url);
};
