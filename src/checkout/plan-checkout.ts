import { AppError, errorMessage } from '../errors';
import { brasiliaDay, formatMoney, type ChargeLine, type Money } from '../payments/money';
import type { PaymentMethod } from '../payments/payment-offer';
import type { PlanDocument } from '../payments/payment-plan';
import { REFUND_DESCRIPTIONS, type RefundReason } from '../payments/payment-provider';
import type { Charge } from './amount-source';
import type { CheckoutDeps } from './checkout-deps';
import {
  isOpen,
  UnreadableRecord,
  type CheckoutRecord,
  type PlanPartName,
  type StoredPlan,
} from './checkout-record';
import { keepIncident } from './payment-incidents';
import {
  centavosOfReais,
  cutAcross,
  depositParts,
  percentHundredthsOf,
  splitTender,
} from './plan-money';

/*
 * A checkout paid on the connector's own page (CONTRACT "The payment page"): the platform's
 * checkout holds the plan, fixed when the order is priced, and alone reports to the platform;
 * each payment the customer starts on the page is a part checkout of its own (its provider
 * checkout, webhooks, reconciler line, incidents and payment record, as any checkout's), linked
 * to it. What a part checkout learns moves its plan on (`advancePlan`): the finish once the
 * deposit (or every part) is paid, and after the plan's outcome, never a second one.
 */

const DAY_MS = 86_400_000;

/** A checkout with a plan: paid on the connector's page. */
export function isPlanned(record: CheckoutRecord): record is CheckoutRecord & { plan: StoredPlan } {
  return record.plan !== undefined;
}

/**
 * The plan of an order priced at `charge` under a shop's plan: a deposit and its balance (an
 * order too small to cut is one part), each with its share of the vendor's fee; the balance due
 * `balanceDueDays` after the checkout opened (a day in Brasília).
 */
export function planOfOrder(
  charge: Pick<Charge, 'amount'>,
  plan: PlanDocument,
  vendorFee: Money | undefined,
  openedAt: Date,
): StoredPlan {
  const cut = plan.deposit
    ? depositParts(charge.amount, percentHundredthsOf(plan.deposit.percent))
    : undefined;
  const amounts: Array<{ part: PlanPartName; amountMinor: number }> = cut
    ? cut.map(({ part, amount }) => ({
        part: part as PlanPartName,
        amountMinor: amount.amountMinor,
      }))
    : [{ part: 'full', amountMinor: charge.amount.amountMinor }];
  const fees = vendorFee
    ? cutAcross(
        vendorFee.amountMinor,
        amounts.map((part) => part.amountMinor),
      )
    : undefined;
  const dueDate = brasiliaDay(new Date(openedAt.getTime() + plan.balanceDueDays * DAY_MS));
  return {
    finishOn: cut ? plan.finishOn : 'full',
    splitTender: plan.splitTender,
    parts: amounts.map((part, i) => ({
      ...part,
      ...(fees ? { vendorFeeMinor: fees[i] } : {}),
      ...(part.part === 'balance' ? { dueDate } : {}),
    })),
  };
}

/** Where one part of a plan stands, from its part checkouts. */
export interface PartStatus {
  part: PlanPartName;
  amountMinor: number;
  vendorFeeMinor?: number;
  dueDate?: string;
  /** What its paid part checkouts add up to (at most `amountMinor`). */
  paidMinor: number;
  /** Its paid part checkouts that count, in the order they were paid. */
  paid: CheckoutRecord[];
  /** Paid beyond the part (two ways chosen at once, both paid): to be given back. */
  surplus: CheckoutRecord[];
  /** Paid and given back (or owed back): they pay nothing of the part. */
  returned: CheckoutRecord[];
  /** A part checkout of it being paid (a Pix or boleto awaited), if any. */
  processing?: CheckoutRecord;
}

const paidAt = (record: CheckoutRecord) => record.reachedAt?.paid ?? record.updatedAt;

/**
 * Each part of `plan` as its part checkouts leave it: the paid ones counted in the order they were
 * paid while they fit the part (a whole part, or its two splits), the rest surplus; one given back
 * (or owed back) counts for nothing.
 */
export function planStatus(plan: StoredPlan, parts: readonly CheckoutRecord[]): PartStatus[] {
  return plan.parts.map((planned) => {
    const own = parts.filter((record) => record.part === planned.part);
    const status: PartStatus = { ...planned, paidMinor: 0, paid: [], surplus: [], returned: [] };
    const paid = own
      .filter((record) => record.outcome === 'paid')
      .sort((a, b) => paidAt(a).localeCompare(paidAt(b)));
    for (const record of paid) {
      if (isGivenBack(record)) {
        status.returned.push(record);
        continue;
      }
      const amount = record.amount?.amountMinor ?? 0;
      if (amount > 0 && status.paidMinor + amount <= planned.amountMinor) {
        status.paidMinor += amount;
        status.paid.push(record);
      } else {
        status.surplus.push(record);
      }
    }
    const processing = own.find((record) => record.state === 'processing');
    return processing ? { ...status, processing } : status;
  });
}

/** Whether a part checkout's payment went back, or is owed back, to its payer. */
function isGivenBack(part: CheckoutRecord): boolean {
  return (part.incidents ?? []).some(
    (incident) =>
      (incident.kind === 'refund' || incident.kind === 'refund_owed') &&
      incident.transactionId === part.transactionId,
  );
}

/** Whether a part is paid in full. */
export const isPaidPart = (part: PartStatus) => part.paidMinor >= part.amountMinor;

/** Whether the plan's outcome is due: its deposit paid (finishing on it), or every part. */
export function planDone(plan: StoredPlan, status: readonly PartStatus[]): boolean {
  return plan.finishOn === 'deposit' && status[0]
    ? isPaidPart(status[0])
    : status.every(isPaidPart);
}

/** A planned checkout's part checkouts that read (one that does not is the reconciler's to park). */
export async function partCheckoutsOf(
  deps: Pick<CheckoutDeps, 'store'>,
  record: CheckoutRecord,
): Promise<CheckoutRecord[]> {
  const ids = record.partCheckouts ?? [];
  if (ids.length === 0) return [];
  const read = await deps.store.getMany(ids);
  return read.filter(
    (part): part is CheckoutRecord => part !== undefined && !(part instanceof UnreadableRecord),
  );
}

/**
 * A planned checkout learned something of its parts: an open one whose plan is done is paid
 * (the finish, once); one whose outcome is recorded gives back what was paid after it, or paid
 * twice. Safe to run again: each step checks what it acts on.
 */
export async function advancePlan(deps: CheckoutDeps, parentId: string): Promise<void> {
  const parent = await deps.store.get(parentId);
  if (!parent || !isPlanned(parent)) return;
  const parts = await partCheckoutsOf(deps, parent);
  const status = planStatus(parent.plan, parts);
  if (isOpen(parent.state)) {
    // Its expiry is giving back what was paid: it ends as expired, never finished.
    if (parent.closing) return;
    if (!planDone(parent.plan, status)) {
      // What is paid of a plan still open stays counted until it may close.
      const open = Date.parse(parent.expiresAt) - deps.clock().getTime();
      if (status.some((part) => part.paid.length > 0)) await deps.store.keepUntil(parts, open);
      return;
    }
    await finishPlan(deps, parent);
    await noteBalance(deps, parent, parts, status);
  } else if (parent.outcome === 'paid') {
    await noteBalance(deps, parent, parts, status);
  }
  await giveBackWhatIsOwed(deps, parent, status);
}

/**
 * What a plan owes back: a part paid twice, and, once it ended undone (expired, declined), every
 * part paid. A failure that may pass is thrown, for the caller's retry (a webhook's, a job's, the
 * reconciler's), each part given back once.
 */
export async function giveBackWhatIsOwed(
  deps: CheckoutDeps,
  parent: CheckoutRecord,
  status: readonly PartStatus[],
  /** The last try: a provider still away leaves a `refund_owed` instead of a failure. */
  lastTry = false,
): Promise<void> {
  const ended = parent.outcome !== undefined && parent.outcome !== 'paid';
  for (const part of status) {
    for (const surplus of part.surplus) await givePartBack(deps, surplus, 'paid_twice', lastTry);
    if (ended) {
      for (const paid of part.paid) await givePartBack(deps, paid, 'plan_expired', lastTry);
    }
  }
}

/**
 * A plan done: its checkout paid and its one finish queued (settle-checkout's `recordOutcome`,
 * without a payment record: each part checkout has its own). A retry queues the same finish.
 */
async function finishPlan(deps: CheckoutDeps, parent: CheckoutRecord): Promise<void> {
  const { checkoutId } = parent;
  const now = deps.clock();
  const lookAt = deps.schedule.firstLookAt(now);
  const { moved, state } = await deps.store.transition(checkoutId, 'paid', {}, now, lookAt, parent);
  if (moved || state === 'paid') await deps.jobs.notify({ checkoutId, kind: 'finish' });
  await deps.replication.held('shop-data', 'notification-queue');
  if (moved) {
    deps.log.info('checkout outcome recorded', {
      checkoutId,
      serviceId: parent.serviceId,
      outcome: 'paid',
      plan: parent.plan?.finishOn,
    });
  }
}

/**
 * The end of the day a part is due, in Brasília (UTC-3, no daylight saving since 2019): overdue
 * from the next day on.
 */
export function dueAtOf(dueDate: string): Date {
  return new Date(Date.parse(`${dueDate}T23:59:59.999-03:00`));
}

/**
 * A plan reported paid: its balance due (the gauges of balances), or none once all is paid. While
 * a balance is owed, the plan and its paid parts are kept until its due day and the retention
 * after it: the page stays payable, and what was paid stays counted.
 */
async function noteBalance(
  deps: CheckoutDeps,
  parent: CheckoutRecord,
  parts: readonly CheckoutRecord[],
  status: readonly PartStatus[],
): Promise<void> {
  const left = status.find((part) => !isPaidPart(part));
  const due = left?.dueDate ? dueAtOf(left.dueDate) : left ? deps.clock() : undefined;
  await deps.line.noteBalance(parent.checkoutId, due);
  // The plan and every part kept alike, to its last due day and the retention after it.
  const last = status.at(-1)?.dueDate;
  const until = last ? dueAtOf(last).getTime() : deps.clock().getTime();
  await deps.store.keepUntil([parent, ...parts], until - deps.clock().getTime());
  // Paid in full after it was reported: the ERP hears of its service again at once.
  const lastPaid = left ? undefined : status.at(-1)?.paid.at(-1);
  if (lastPaid && status.length > 1) {
    await deps.paidSync?.servicePaid(parent.serviceId, lastPaid.checkoutId);
  }
}

const REFUND_SAID: Readonly<Record<RefundReason, string>> = {
  late_payment: 'paid after its checkout closed',
  plan_expired: 'a part of a plan that ended undone',
  paid_twice: 'a part of a plan paid twice',
};

/**
 * A paid part checkout given back to its payer through the provider (`refundPayment`), told as a
 * `refund` incident; where the provider cannot, or refuses, a `refund_owed` incident: the shop
 * refunds it by hand. Once per part checkout.
 */
export async function givePartBack(
  deps: CheckoutDeps,
  part: CheckoutRecord,
  reason: RefundReason,
  lastTry = false,
): Promise<void> {
  const { transactionId } = part;
  if (isGivenBack(part) || !part.providerRef) return;
  // One give-back at a time per part (the expiry, the reconciler and a webhook may meet here); a
  // runner that finds one under way fails, to be retried: the other may fail too.
  if (!(await deps.store.claimRefund(part.checkoutId))) {
    throw new AppError('INTERNAL', `A refund of ${part.checkoutId} is under way.`, {
      retryable: true,
    });
  }
  const why = REFUND_SAID[reason];
  let asked: string | undefined;
  let problem: string | undefined;
  if (!deps.provider.refundPayment) {
    problem = `${deps.provider.name} cannot refund through the connector`;
  } else {
    try {
      asked = await deps.provider.refundPayment(
        { providerRef: part.providerRef, checkoutId: part.checkoutId },
        reason,
      );
    } catch (error) {
      deps.log.error('could not give a part of a plan back to its payer', {
        checkoutId: part.checkoutId,
        parent: part.parent,
        provider: deps.provider.name,
        errMessage: errorMessage(error),
      });
      // Away, or a failure that may pass: asked again by the caller's retry, until its last.
      const mayPass = !(error instanceof AppError) || error.retryable;
      if (mayPass && !lastTry) {
        await deps.store.releaseRefund(part.checkoutId);
        throw error;
      }
      problem = mayPass
        ? 'the provider kept failing'
        : `the provider refused it (${(error as AppError).code})`;
    }
    // Nothing to give back, says the provider (a disputed charge, a Pix held): the shop looks.
    if (!problem && asked === undefined) problem = 'the provider found nothing to refund';
  }
  const incident = problem
    ? {
        kind: 'refund_owed' as const,
        note: `${why}, owed back to the payer: ${problem}; refund it at the provider (${REFUND_DESCRIPTIONS[reason]})`,
      }
    : { kind: 'refund' as const, note: `${why}, given back by the connector: ${asked}` };
  await keepIncident(deps, part, {
    ...incident,
    ...(transactionId ? { transactionId } : {}),
    at: deps.clock().toISOString(),
  });
}

/** A customer's choice on the page, as the form posts it. */
export interface PartChoice {
  part?: unknown;
  method?: unknown;
  /** For `split-1`: the first amount, in reais as typed (`1234,56`). */
  amount?: unknown;
}

export type StartResult =
  | { kind: 'redirect'; url: string; partCheckout: string }
  /** A choice the page cannot take: the customer's words, and the status to answer it with. */
  | { kind: 'refused'; status: 400 | 409 | 422; problem: string }
  | { kind: 'gone' };

const refused = (status: 400 | 409 | 422, problem: string): StartResult => ({
  kind: 'refused',
  status,
  problem,
});

const PART_LABELS: Readonly<Record<PlanPartName, string>> = {
  full: 'Pagamento',
  deposit: 'Entrada (sinal)',
  balance: 'Saldo',
};

/** What a choice pays: a part, or one of its two splits, with its amount and fee share. */
interface PartPayment {
  part: PartStatus;
  split?: 1 | 2;
  amountMinor: number;
  vendorFeeMinor?: number;
}

/** A first amount out of its range, in the customer's words. */
function splitRefused({ least, most }: { least: number; most: number }, currency: string) {
  return refused(
    422,
    most < least
      ? 'Esta parte é pequena demais para ser dividida.'
      : `O primeiro valor deve ficar entre ${formatMoney(least, currency)} e ${formatMoney(most, currency)}.`,
  );
}

/** The choice read against the plan as it stands: what it pays, or why not. */
function paymentOf(
  plan: StoredPlan,
  status: readonly PartStatus[],
  choice: PartChoice,
  currency: string,
): PartPayment | StartResult {
  const due = status.find((part) => !isPaidPart(part));
  if (!due) return refused(409, 'Este pedido já está todo pago.');
  const awaited = due.processing;
  if (awaited) {
    // A Pix or boleto issued and not yet paid: the same way leads back to it; another waits.
    if (awaited.method === choice.method && awaited.url) {
      return { kind: 'redirect', url: awaited.url, partCheckout: awaited.checkoutId };
    }
    return refused(409, 'Um pagamento desta parte aguarda confirmação: volte em instantes.');
  }
  const fee = due.vendorFeeMinor;
  const rest = due.amountMinor - due.paidMinor;
  const splitFees = (first: number) =>
    fee === undefined ? undefined : cutAcross(fee, [first, due.amountMinor - first]);
  const name = choice.part;
  if (name === 'split-1') {
    if (!plan.splitTender) return refused(422, 'Esta loja não divide o pagamento de uma parte.');
    if (due.paidMinor > 0) return refused(409, 'O primeiro valor desta parte já foi pago.');
    const first = typeof choice.amount === 'string' ? centavosOfReais(choice.amount) : undefined;
    const split = splitTender({ amountMinor: due.amountMinor, currency }, first ?? -1);
    if ('refused' in split) return splitRefused(split.refused, currency);
    const amountMinor = split.parts[0].amount.amountMinor;
    const fees = splitFees(amountMinor);
    return { part: due, split: 1, amountMinor, ...(fees ? { vendorFeeMinor: fees[0] } : {}) };
  }
  const whole = name === due.part;
  if (name === 'split-2' || (whole && due.paidMinor > 0)) {
    if (due.paidMinor === 0) return refused(409, 'Pague primeiro o primeiro valor desta parte.');
    const fees = splitFees(due.paidMinor);
    return { part: due, split: 2, amountMinor: rest, ...(fees ? { vendorFeeMinor: fees[1] } : {}) };
  }
  if (whole) {
    return {
      part: due,
      amountMinor: due.amountMinor,
      ...(fee !== undefined ? { vendorFeeMinor: fee } : {}),
    };
  }
  if (status.some((part) => part.part === name)) {
    return refused(
      409,
      status.find((part) => part.part === name && isPaidPart(part))
        ? 'Esta parte já está paga.'
        : 'Pague primeiro a entrada.',
    );
  }
  return refused(400, 'Escolha uma parte do pedido para pagar.');
}

/**
 * A choice on the page (`POST /pay/:checkoutId/start`): the part checkout it leads to, made at
 * the provider (once: the same choice while its checkout is open leads to it again), or why it
 * cannot be taken, in the customer's words. A provider failure is thrown: nothing was promised.
 */
export async function startPart(
  deps: CheckoutDeps,
  checkoutId: string,
  choice: PartChoice,
): Promise<StartResult> {
  const parent = await deps.store.get(checkoutId);
  if (!parent || !isPlanned(parent)) return { kind: 'gone' };
  const pastExpiry = isOpen(parent.state) && deps.clock().getTime() >= Date.parse(parent.expiresAt);
  if ((parent.outcome && parent.outcome !== 'paid') || parent.closing || pastExpiry) {
    return refused(409, 'Este pedido não está mais aberto para pagamento.');
  }
  const methods = deps.offered?.methods ?? [];
  const method = methods.find((offered) => offered === choice.method);
  if (!method) return refused(422, 'Escolha uma das formas de pagamento oferecidas.');
  const parts = await partCheckoutsOf(deps, parent);
  if (parts.length < (parent.partCheckouts ?? []).length) {
    // A part checkout whose record is gone may have been paid: nothing is taken on a guess.
    deps.log.error('a plan names part checkouts that cannot be read', { checkoutId });
    return refused(409, 'Não é possível pagar este pedido agora: fale com a loja.');
  }
  const status = planStatus(parent.plan, parts);
  const payment = paymentOf(parent.plan, status, choice, parent.amount?.currency ?? deps.currency);
  if ('kind' in payment) return payment;
  const now = deps.clock();
  const opened = await deps.store.openPart({
    parentId: checkoutId,
    checkoutId: deps.newCheckoutId(),
    slot: `slot:${payment.part.part}:${payment.split ?? 0}:${method}:${payment.amountMinor}`,
    part: payment.part.part,
    ...(payment.split ? { split: payment.split } : {}),
    planParts: parent.plan.parts.length,
    orderMinor: parent.amount?.amountMinor ?? 0,
    provider: deps.provider.name,
    now,
    expiresAt: new Date(now.getTime() + deps.expiryMs),
    lookAt: deps.schedule.firstLookAt(now),
  });
  if (opened.kind === 'gone') return { kind: 'gone' };
  if (opened.kind === 'full') {
    deps.log.warn('a plan has as many part checkouts as it may have', { checkoutId });
    return refused(409, 'Foram muitas tentativas de pagamento: fale com a loja.');
  }
  if (!('record' in opened)) {
    return refused(409, 'Este pedido não está mais aberto para pagamento.');
  }
  const { record } = opened;
  const made = record.url ? record : await makePartCheckout(deps, parent, record, payment, method);
  if (!made.url) throw new Error(`part checkout ${made.checkoutId} has no URL`);
  if (!(await stillPayable(deps, made))) {
    return refused(409, 'Este pedido não está mais aberto para pagamento.');
  }
  // The customer reaches the provider only once a replica holds the checkout it pays.
  await deps.replication.held('shop-data');
  deps.log.info('part of a plan started', {
    checkoutId: made.checkoutId,
    parent: checkoutId,
    part: payment.part.part,
    ...(payment.split ? { split: payment.split } : {}),
    method,
  });
  return { kind: 'redirect', url: made.url, partCheckout: made.checkoutId };
}

/**
 * Whether a part checkout just made is still payable: its plan's expiry may have closed it while
 * the provider made it (before it had a reference to close at the provider); then it is closed
 * there now, and the customer is not sent to pay it.
 */
async function stillPayable(deps: CheckoutDeps, part: CheckoutRecord): Promise<boolean> {
  const [now, parent] = await Promise.all([
    deps.store.get(part.checkoutId),
    part.parent ? deps.store.get(part.parent) : undefined,
  ]);
  const ended = parent?.outcome !== undefined && parent.outcome !== 'paid';
  if (now && isOpen(now.state) && !ended) return true;
  if (part.providerRef) {
    await deps.provider.cancelCheckout?.({
      providerRef: part.providerRef,
      checkoutId: part.checkoutId,
    });
  }
  return false;
}

/** The provider checkout of a part, stored on its record. */
async function makePartCheckout(
  deps: CheckoutDeps,
  parent: CheckoutRecord,
  record: CheckoutRecord,
  payment: PartPayment,
  method: PaymentMethod,
): Promise<CheckoutRecord> {
  const { currency } = parent.amount ?? { currency: deps.currency };
  const amount: Money = { amountMinor: payment.amountMinor, currency };
  const label = `${PART_LABELS[payment.part.part]}${payment.split ? ` (${payment.split}º de 2)` : ''}`;
  const lines: ChargeLine[] = [
    { label: `${label} do pedido ${parent.serviceId}`, amountMinor: payment.amountMinor },
  ];
  const vendorFee =
    payment.vendorFeeMinor === undefined
      ? undefined
      : { amountMinor: payment.vendorFeeMinor, currency };
  const returnUrl = `${deps.publicUrl}/return/${deps.provider.name}?checkout_id=${encodeURIComponent(record.checkoutId)}`;
  const created = await deps.provider.createCheckout({
    checkoutId: record.checkoutId,
    serviceId: parent.serviceId,
    amount,
    lines,
    description: `Pedido ${parent.serviceId}: ${label.toLowerCase()}`,
    returnUrl,
    cancelUrl: `${returnUrl}&cancelled=1`,
    createdAt: new Date(record.createdAt),
    expiresAt: new Date(record.expiresAt),
    methods: [method],
    ...(vendorFee && vendorFee.amountMinor > 0 ? { vendorFee } : {}),
  });
  const now = deps.clock();
  return deps.store.attachProviderCheckout(
    record.checkoutId,
    {
      provider: record.provider,
      ...created,
      amount,
      lines,
      ...(vendorFee && vendorFee.amountMinor > 0 ? { vendorFee } : {}),
    },
    now,
    deps.schedule.firstLookAt(now),
  );
}

/**
 * A planned order's payment as the ERP gets it with its service (`connector_payment`): the page to
 * send the customer, the order, what is paid, and the balance due with its day (null once paid).
 */
export function servicePaymentOf(
  record: CheckoutRecord,
  parts: readonly CheckoutRecord[],
): Record<string, unknown> | undefined {
  if (!isPlanned(record) || !record.amount) return undefined;
  const status = planStatus(record.plan, parts);
  const ended = record.outcome !== undefined && record.outcome !== 'paid';
  const paid = status.reduce((sum, part) => sum + part.paidMinor, 0);
  const left = ended ? undefined : status.find((part) => !isPaidPart(part));
  return {
    checkout_id: record.checkoutId,
    payment_page: ended ? null : (record.url ?? null),
    state: ended ? 'ended' : left ? 'balance_due' : 'paid',
    currency: record.amount.currency,
    order_total: record.amount.amountMinor,
    paid,
    balance_due: left
      ? { amount_minor: left.amountMinor - left.paidMinor, due_date: left.dueDate ?? null }
      : null,
    parts: status.map((part) => ({
      part: part.part,
      amount_minor: part.amountMinor,
      paid_minor: part.paidMinor,
      due_date: part.dueDate ?? null,
    })),
  };
}
