import type { UnreadableRecord } from '../checkout/checkout-record';
import type { ParkedUnreadable } from '../checkout/ports';
import { loadQueueConfig } from '../config';
import { CliFailure, EXIT, write, type CliIo } from './cli-io';
import { printable } from './terminal-text';

/** The most parked records one listing shows. */
const SHOWN = 1000;

/**
 * A checkout whose record does not read as a checkout, as `checkout status` shows it: its id
 * and what is wrong (the field and why, from the store; never the record's other fields).
 * `unreadable: false` is one a person mended after the reconciler parked it.
 */
export interface UnreadableStory {
  checkout_id: string;
  unreadable: boolean;
  problem?: string;
  parked_at?: string;
}

/** The story of a record in a service's list that cannot be read. */
export function unreadableStory(record: UnreadableRecord): UnreadableStory {
  return { checkout_id: record.checkoutId, unreadable: true, problem: record.problem };
}

function parkedStory(parked: ParkedUnreadable): UnreadableStory {
  return {
    checkout_id: parked.checkoutId,
    unreadable: parked.problem !== undefined,
    ...(parked.problem === undefined ? {} : { problem: parked.problem }),
    parked_at: parked.parkedAt.toISOString(),
  };
}

/**
 * The table form of one unreadable record: a heading and what to do about it. The problem quotes
 * a stored value: every non-printable character of it escaped, the line feed too.
 */
export function unreadableLines(story: UnreadableStory): string {
  const parked = story.parked_at ? `parked ${story.parked_at}, ` : '';
  return story.unreadable
    ? `checkout ${story.checkout_id}  unreadable: ${printable(story.problem ?? '')}\n` +
        `  ${parked}out of the reconciler's line: a person mends or deletes the record`
    : `checkout ${story.checkout_id}  reads now\n` +
        `  ${parked}out of the reconciler's line since`;
}

/** `checkout status --unreadable`: the shop's records the reconciler parked as unreadable. */
export async function listUnreadable(
  io: CliIo,
  options: { format: 'table' | 'json'; shop: string },
): Promise<void> {
  const { redis } = loadQueueConfig(io.env);
  const access = await io.adapters.openQueues(redis, options.shop);
  let stories: UnreadableStory[];
  try {
    stories = (await access.line.unreadableCheckouts(SHOWN)).map(parkedStory);
  } finally {
    await access.close();
  }
  if (options.format === 'json') {
    await write(io.stdout, `${JSON.stringify(stories, null, 2)}\n`);
  } else if (stories.length === 0) {
    await write(io.stdout, `no unreadable checkout records in shop ${options.shop}\n`);
  } else {
    await write(io.stdout, `${stories.map(unreadableLines).join('\n\n')}\n`);
  }
}

/** The usage error of `checkout status` given neither a service nor `--unreadable`, or both. */
export function statusUsage(): CliFailure {
  return new CliFailure(
    'checkout status: give a service id, or --unreadable for the records the reconciler parked',
    EXIT.usage,
  );
}
