import type {
  CheckoutRecord,
  CheckoutState,
  PaidWith,
  PaymentIncident,
  PlanPartName,
} from '../checkout/checkout-record';
import { planStatus } from '../checkout/plan-checkout';
import type { DeliveryProgress } from '../delivery/ports';
import { formatMoney } from '../html/page-layout';
import { unreadableLines, type UnreadableStory } from './unreadable-checkouts';

export interface StoryStep {
  step: string;
  at: string | undefined;
  note?: string;
}

export interface StoryMoney {
  amount_minor: number;
  currency: string;
}

/** A checkout as `checkout status` tells it: the record's fields (checkout-record.ts) in snake case. */
export interface CheckoutStory {
  checkout_id: string;
  service_id: number;
  provider: string;
  state: CheckoutState;
  outcome: string | undefined;
  amount: StoryMoney | undefined;
  collected?: StoryMoney;
  interest?: StoryMoney;
  method?: PaidWith;
  vendor_fee?: StoryMoney;
  checkout_url: string | undefined;
  expires_at: string;
  requests: number | undefined;
  incidents: Array<{
    kind: string;
    at: string;
    transaction_id?: string;
    natureza?: string;
    note?: string;
  }>;
  steps: StoryStep[];
  deliveries: Array<{
    kind: string;
    state: string;
    attempts: number;
    last_error: string | undefined;
    finished_at: string | undefined;
    next_attempt_at: string | undefined;
  }>;
  /** A checkout paid on the payment page: its plan, each part with what is paid of it. */
  plan?: {
    finish_on: 'deposit' | 'full';
    parts: Array<{
      part: PlanPartName;
      amount: StoryMoney;
      paid: StoryMoney;
      due_date?: string;
      part_checkouts: string[];
    }>;
  };
  /** A part checkout: the checkout whose plan it pays, and which part. */
  part_of?: { checkout_id: string; part: PlanPartName; split?: 1 | 2 };
}

/** Each part of a plan as the story tells it, from its part checkouts (plan-checkout.ts). */
export function planStory(
  record: CheckoutRecord,
  parts: readonly CheckoutRecord[],
): CheckoutStory['plan'] {
  if (!record.plan) return undefined;
  const currency = record.amount?.currency ?? '';
  const money = (amountMinor: number) => ({ amount_minor: amountMinor, currency });
  return {
    finish_on: record.plan.finishOn,
    parts: planStatus(record.plan, parts).map((part) => ({
      part: part.part,
      amount: money(part.amountMinor),
      paid: money(part.paidMinor),
      ...(part.dueDate ? { due_date: part.dueDate } : {}),
      part_checkouts: parts.filter((one) => one.part === part.part).map((one) => one.checkoutId),
    })),
  };
}

const METHOD_WORDS: Record<PaidWith, string> = { card: 'card', pix: 'Pix', boleto: 'boleto' };
const byMethod = (r: CheckoutRecord): string | undefined =>
  r.method ? `by ${METHOD_WORDS[r.method]}` : undefined;

const OUTCOME_NOTES: Partial<
  Record<CheckoutState, (record: CheckoutRecord) => string | undefined>
> = {
  paid: (r) =>
    [
      byMethod(r),
      r.transactionId ? `transaction ${r.transactionId}` : undefined,
      r.interest && r.collected
        ? `collected ${formatMoney(r.collected.amountMinor, r.collected.currency)}, of which ${formatMoney(r.interest.amountMinor, r.interest.currency)} the buyer's installment interest`
        : undefined,
    ]
      .filter(Boolean)
      .join('; ') || undefined,
  declined: (r) => [byMethod(r), r.reason].filter(Boolean).join('; ') || undefined,
  expired: (r) => [byMethod(r), r.reason].filter(Boolean).join('; ') || undefined,
  failed: (r) => r.reason,
};

function deliveryStep(delivery: DeliveryProgress, reportedAt: string | undefined): StoryStep {
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  switch (delivery.state) {
    case 'completed':
      return {
        step: `${delivery.kind} delivered`,
        at: reportedAt ?? delivery.finishedAt,
        note: attempts,
      };
    case 'failed':
      return {
        step: `${delivery.kind} failed`,
        at: delivery.finishedAt,
        note: `${attempts}, last error: ${delivery.lastError ?? 'unknown'}; in the failed set (connector notifications retry ${delivery.kind}-...)`,
      };
    default:
      return {
        step: `${delivery.kind} ${delivery.state === 'delayed' ? 'retrying' : delivery.state}`,
        at: undefined,
        note: [
          attempts,
          delivery.nextAttemptAt ? `next attempt ${delivery.nextAttemptAt}` : undefined,
          delivery.lastError ? `last error: ${delivery.lastError}` : undefined,
        ]
          .filter(Boolean)
          .join(', '),
      };
  }
}

function stepsToOutcome(record: CheckoutRecord): StoryStep[] {
  const reached = record.reachedAt ?? {};
  const steps: StoryStep[] = [
    {
      step: 'requested',
      at: record.createdAt,
      note: record.requests && record.requests > 1 ? `${record.requests} requests` : undefined,
    },
  ];
  if (reached.url_sent) steps.push({ step: 'URL sent', at: reached.url_sent });
  if (reached.processing) {
    // Still under way: the record's method is the one being paid (once settled, the outcome's).
    const note = record.state === 'processing' ? byMethod(record) : undefined;
    steps.push({ step: 'processing', at: reached.processing, ...(note ? { note } : {}) });
  }
  if (record.outcome) {
    steps.push({
      step: record.outcome,
      at: reached[record.outcome] ?? record.updatedAt,
      note: OUTCOME_NOTES[record.outcome]?.(record),
    });
  }
  return steps;
}

function incidentStep(incident: PaymentIncident): StoryStep {
  return {
    step: `incident: ${incident.kind.replace('_', ' ')}`,
    at: incident.at,
    note: [incident.transactionId ? `payment ${incident.transactionId}` : undefined, incident.note]
      .filter(Boolean)
      .join('; '),
  };
}

function storySteps(record: CheckoutRecord, deliveries: DeliveryProgress[]): StoryStep[] {
  const reported = record.reachedAt?.reported;
  const steps = stepsToOutcome(record);
  for (const delivery of deliveries) steps.push(deliveryStep(delivery, reported));
  if (record.state === 'reported' && deliveries.length === 0) {
    // The delivery's job is trimmed after 7 days; the record still says it was acknowledged.
    steps.push({ step: 'platform notified', at: reported });
  }
  steps.push(...(record.incidents ?? []).map(incidentStep));
  if (record.cancelDroppedFor) {
    steps.push({
      step: 'cancel not sent',
      at: undefined,
      note: `a newer checkout of the service was paid (${record.cancelDroppedFor})`,
    });
  }
  return steps;
}

const storyMoney = (money: { amountMinor: number; currency: string }): StoryMoney => ({
  amount_minor: money.amountMinor,
  currency: money.currency,
});

/** Every step reached, with its time, then its deliveries. */
export function checkoutStory(
  record: CheckoutRecord,
  deliveries: DeliveryProgress[],
  /** A planned checkout's part checkouts. */
  parts: readonly CheckoutRecord[] = [],
): CheckoutStory {
  const plan = planStory(record, parts);
  return {
    ...(plan ? { plan } : {}),
    ...(record.parent && record.part
      ? {
          part_of: {
            checkout_id: record.parent,
            part: record.part,
            ...(record.split ? { split: record.split } : {}),
          },
        }
      : {}),
    checkout_id: record.checkoutId,
    service_id: record.serviceId,
    provider: record.provider,
    state: record.state,
    outcome: record.outcome,
    amount: record.amount ? storyMoney(record.amount) : undefined,
    ...(record.collected ? { collected: storyMoney(record.collected) } : {}),
    ...(record.interest ? { interest: storyMoney(record.interest) } : {}),
    ...(record.method ? { method: record.method } : {}),
    ...(record.vendorFee ? { vendor_fee: storyMoney(record.vendorFee) } : {}),
    checkout_url: record.url,
    expires_at: record.expiresAt,
    requests: record.requests,
    incidents: (record.incidents ?? []).map((incident) => ({
      kind: incident.kind,
      at: incident.at,
      ...(incident.transactionId ? { transaction_id: incident.transactionId } : {}),
      ...(incident.natureza ? { natureza: incident.natureza } : {}),
      ...(incident.note ? { note: incident.note } : {}),
    })),
    steps: storySteps(record, deliveries),
    deliveries: deliveries.map((d) => ({
      kind: d.kind,
      state: d.state,
      attempts: d.attempts,
      last_error: d.lastError,
      finished_at: d.finishedAt,
      next_attempt_at: d.nextAttemptAt,
    })),
  };
}

function amountText(amount: CheckoutStory['amount']): string {
  return amount ? formatMoney(amount.amount_minor, amount.currency) : 'not priced yet';
}

/** The table form: a heading per checkout, newest first, a line per step. */
export function storyTable(stories: Array<CheckoutStory | UnreadableStory>): string {
  return stories
    .map((story) => {
      if ('unreadable' in story) return unreadableLines(story);
      const method = story.method ? ` (${METHOD_WORDS[story.method]})` : '';
      // Reported: the platform heard the outcome, which is what the reader wants first.
      const now =
        story.state === 'reported' && story.outcome
          ? `${story.outcome}${method}, reported to the platform`
          : `${story.state}${method}`;
      const fee = story.vendor_fee ? ` (vendor fee ${amountText(story.vendor_fee)})` : '';
      const of = story.part_of
        ? `  ${story.part_of.part}${story.part_of.split ? ` (${story.part_of.split} of 2)` : ''} of ${story.part_of.checkout_id}`
        : '';
      const head = `checkout ${story.checkout_id}  ${story.provider}  ${amountText(story.amount)}${fee}  now ${now}${of}`;
      const lines = story.steps.map((step) =>
        `  ${step.step.padEnd(18)} ${(step.at ?? '').padEnd(24)}${step.note ? `  ${step.note}` : ''}`.trimEnd(),
      );
      return [head, ...planLines(story.plan), ...lines].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

/** A plan's parts, a line each: what it is, what is paid of it, when it is due. */
function planLines(plan: CheckoutStory['plan']): string[] {
  if (!plan) return [];
  return [
    `  plan               finish on ${plan.finish_on === 'deposit' ? 'the deposit' : 'the whole'}`,
    ...plan.parts.map((part) => {
      const paid = part.paid.amount_minor >= part.amount.amount_minor;
      const state = paid ? 'paid' : `paid ${amountText(part.paid)}`;
      const due = part.due_date && !paid ? `, due ${part.due_date}` : '';
      const checkouts =
        part.part_checkouts.length > 0 ? `  (${part.part_checkouts.join(', ')})` : '';
      return `  ${`part ${part.part}`.padEnd(18)} ${amountText(part.amount)}, ${state}${due}${checkouts}`;
    }),
  ];
}
