import {
  dateTextOf,
  SERVICE_STATUS_NAMES,
  statusCodeOf,
  textOf,
  type ServiceListItem,
} from '../platform/schemas';

export const LIST_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

const COLUMNS = ['id', 'internal_code', 'status_code', 'status_name', 'created_date'] as const;

function row(item: ServiceListItem): string[] {
  const code = statusCodeOf(item.status);
  const status = item.status as { created_date?: unknown } | null | undefined;
  return [
    String(item.id),
    textOf(item.internal_code) ?? '',
    code === undefined ? '' : String(code),
    code === undefined ? '' : (SERVICE_STATUS_NAMES[code] ?? 'unknown'),
    dateTextOf(status?.created_date) ?? '',
  ];
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const WIDTHS = [8, 14, 11, 20, 24];
const pad = (cells: readonly string[]): string =>
  cells
    .map((cell, i) => cell.padEnd(WIDTHS[i] ?? 0))
    .join(' ')
    .trimEnd();

/** Streams items: `header()`, `item()` each, `footer()`; memory stays bounded. */
export interface ListWriter {
  header(): string;
  item(item: ServiceListItem, index: number): string;
  footer(): string;
}

export function listWriter(format: ListFormat): ListWriter {
  switch (format) {
    case 'json':
      return {
        header: () => '[',
        item: (item, index) => `${index === 0 ? '\n' : ',\n'}${JSON.stringify(item)}`,
        footer: () => '\n]\n',
      };
    case 'ndjson':
      return { header: () => '', item: (item) => `${JSON.stringify(item)}\n`, footer: () => '' };
    case 'csv':
      return {
        header: () => `${COLUMNS.join(',')}\n`,
        item: (item) => `${row(item).map(csvField).join(',')}\n`,
        footer: () => '',
      };
    case 'table':
      return {
        header: () => `${pad(COLUMNS.map((c) => c.toUpperCase()))}\n`,
        item: (item) => `${pad(row(item))}\n`,
        footer: () => '',
      };
  }
}
