import { computedAmount } from '../checkout/amount-source';
import { formatMoney } from '../html/page-layout';
import {
  dateTextOf,
  SERVICE_STATUS_NAMES,
  statusCodeOf,
  textOf,
  type Service,
} from '../platform/schemas';

// Fields are read as passed (docs/platform.md: sub-objects may be partial): odd data never fails.

type Loose = Record<string, unknown>;

export const asObject = (value: unknown): Loose =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
const asArray = (value: unknown): Loose[] =>
  Array.isArray(value) ? value.map((item) => asObject(item)) : [];
const num = (value: unknown): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/** The platform's amounts are in reais. */
function money(amount: number | undefined, currency: string): string {
  return amount === undefined ? '' : formatMoney(amount * 100, currency);
}

const STATUS_DATES: ReadonlyArray<[string, string]> = [
  ['created_date', 'created'],
  ['budgeted_date', 'quote generated'],
  ['purchased_date', 'purchased'],
  ['authorized_date', 'approved'],
  ['finished_date', 'finished'],
];

const LABOUR: ReadonlyArray<[string, string]> = [
  ['cutting', 'cutting'],
  ['edging', 'edge banding'],
  ['machining', 'machining'],
  ['packing', 'packing'],
  ['delivery', 'delivery'],
];

function machiningResume(machining: Loose): string {
  const resume = asObject(machining.resume);
  const groups: Array<[string, string, string]> = [
    ['drills', 'diameter', 'drills Ø'],
    ['rip', 'thickness', 'rip'],
    ['filister', 'thickness', 'filister'],
  ];
  return groups
    .flatMap(([key, size, label]) => {
      const items = asArray(resume[key]);
      if (items.length === 0) return [];
      const parts = items.map(
        (item) => `${textOf(item[size]) ?? '?'} mm × ${textOf(item.quantity) ?? '?'}`,
      );
      return [`${label} ${parts.join(', ')}`];
    })
    .join('; ');
}

function partLines(part: Loose): string[] {
  const size = [textOf(part.c), textOf(part.l)].every(Boolean)
    ? `${textOf(part.c)} × ${textOf(part.l)} mm`
    : '';
  const head = [
    `${textOf(part.quantity) ?? '?'} ×`,
    textOf(part.function) ?? 'part',
    size,
    textOf(part.material) ?? '',
    textOf(part.complement) ? `(${textOf(part.complement)})` : '',
  ]
    .filter(Boolean)
    .join('  ');
  const lines = [`  ${head}`];
  const edges = ['c1', 'c2', 'l1', 'l2'].flatMap((side) => {
    const tape = textOf(part[side]);
    return tape ? [`${side} ${tape}`] : [];
  });
  lines.push(`      edge banding: ${edges.length > 0 ? edges.join(', ') : 'none'}`);
  const machining = asObject(part.machining);
  const drills = asArray(machining.horizontalDrills);
  if (drills.length > 0) {
    const shown = drills.map(
      (drill) =>
        `corner ${textOf(drill.corner) ?? '?'} ${textOf(drill.direction) ?? ''} Ø${textOf(drill.diameter) ?? '?'} depth ${textOf(drill.depth) ?? '?'} at (${[drill.x, drill.y, drill.z].map((v) => textOf(v) ?? '?').join(', ')})`,
    );
    lines.push(`      drills: ${shown.join('; ')}`);
  }
  const others = Object.keys(machining).filter(
    (key) => !['x', 'y', 'z', 'startSide', 'horizontalDrills'].includes(key),
  );
  if (others.length > 0) lines.push(`      more machining: ${others.join(', ')}`);
  return lines;
}

export async function serviceSummary(service: Service, currency: string): Promise<string> {
  const raw = service as unknown as Loose;
  const parts = asArray(raw.parts);
  const section = (title: string, lines: string[]) =>
    lines.length > 0 ? ['', title, ...lines] : [];
  const charge = await computedAmount(service, currency);
  return `${[
    ...headLines(service, raw),
    ...section('labour:', labourLines(asObject(raw.labour), currency)),
    ...section('materials:', materialLines(asObject(raw.materials), currency)),
    ...section(`parts (${parts.length}):`, parts.flatMap(partLines)),
    '',
    `amount the connector would charge: ${money(charge.amount.amountMinor / 100, currency)}`,
    ...charge.lines.map((line) => `  ${line.label}  ${money(line.amountMinor / 100, currency)}`),
  ].join('\n')}\n`;
}

/** Its ids, status and dates, and observation. */
function headLines(service: Service, raw: Loose): string[] {
  const status = asObject(raw.status);
  const code = statusCodeOf(raw.status);
  const erp = textOf(raw.internal_code);
  const client = textOf(asObject(raw.client).internal_code);
  const observation = textOf(raw.observation);
  return [
    [
      `service ${service.id}`,
      erp ? `ERP order ${erp}` : 'no ERP order',
      client ? `client ${client}` : '',
    ]
      .filter(Boolean)
      .join('  ·  '),
    `status: ${code === undefined ? 'unknown' : `${code} ${SERVICE_STATUS_NAMES[code] ?? '(unknown code)'}`}`,
    ...STATUS_DATES.flatMap(([field, label]) => {
      const date = dateTextOf(status[field]);
      return date ? [`  ${label.padEnd(16)} ${date}`] : [];
    }),
    ...(observation ? [`observation: ${observation}`] : []),
  ];
}

function labourLines(labour: Loose, currency: string): string[] {
  return LABOUR.flatMap(([key, label]) => {
    if (!(key in labour)) return [];
    const item = asObject(labour[key]);
    const quantity = textOf(item.quantity);
    const extra = key === 'machining' ? machiningResume(item) : '';
    return [
      `  ${label.padEnd(14)} ${money(num(item.price), currency).padStart(14)}${quantity ? `  quantity ${quantity}` : ''}${extra ? `  ${extra}` : ''}`,
    ];
  });
}

function materialLines(materials: Loose, currency: string): string[] {
  return (['boards', 'edges', 'components'] as const).flatMap((kind) =>
    asArray(materials[kind]).map((item) => {
      const name = textOf(item.description) ?? textOf(item.internal_code) ?? kind;
      const codeText = textOf(item.internal_code) ? ` [${textOf(item.internal_code)}]` : '';
      const unit = textOf(item.unit) ? ` ${textOf(item.unit)}` : '';
      return `  ${kind.padEnd(10)} ${textOf(item.quantity) ?? '?'}${unit} × ${name}${codeText}  ${money(num(item.price), currency)} each`;
    }),
  );
}
