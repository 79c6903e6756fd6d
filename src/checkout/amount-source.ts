import { textOf, type Service } from '../platform/schemas';
import type { ChargeLine, Money } from './checkout-record';

export interface Charge {
  amount: Money;
  lines: ChargeLine[];
}

/**
 * Prices a service. The default sums the service's own prices; an integrator whose ERP knows
 * the order total can plug in another source in the composition root.
 */
export type AmountSource = (service: Service, currency: string) => Promise<Charge> | Charge;

const cents = (value: number | null | undefined, quantity: number | null | undefined = 1): number =>
  Math.round((value ?? 0) * (quantity ?? 0) * 100);

const LABOUR = [
  ['cutting', 'Corte'],
  ['edging', 'Aplicação de fita de borda'],
  ['machining', 'Usinagem e furação'],
  ['packing', 'Embalagem'],
  ['delivery', 'Entrega'],
] as const;

const MATERIALS = [
  ['boards', 'Chapa'],
  ['edges', 'Fita de borda'],
  ['components', 'Componente'],
] as const;

/**
 * [ours] The platform has no total field (docs/platform.md): the amount is the sum of the labour
 * prices plus price x quantity of every board, edge and component. Lines of zero are left out.
 */
export const computedAmount: AmountSource = (service, currency) => {
  const lines: ChargeLine[] = [];
  const add = (label: string, amountMinor: number): void => {
    if (amountMinor !== 0) lines.push({ label, amountMinor });
  };
  for (const [kind, fallback] of MATERIALS) {
    for (const item of service.materials?.[kind] ?? []) {
      // Edge banding is sold by length: its unit (m) says how much; boards and parts count.
      const unit = kind === 'edges' ? textOf(item.unit) : undefined;
      add(
        `${textOf(item.description) ?? textOf(item.internal_code) ?? fallback} × ${item.quantity ?? 0}${unit ? ` ${unit}` : ''}`,
        cents(item.price, item.quantity),
      );
    }
  }
  for (const [key, label] of LABOUR) add(label, cents(service.labour?.[key]?.price));
  const amountMinor = lines.reduce((sum, line) => sum + line.amountMinor, 0);
  return { amount: { amountMinor, currency }, lines };
};
