import type { UnreadableRecord } from '../checkout/checkout-record';
import type { ParkedUnreadable } from '../checkout/ports';
import { CliFailure, EXIT, withQueues, write, type CliIo } from './cli-io';
import { printable } from './terminal-text';

/** The most parked records one listing shows. */
const SHOWN = 1000;

/** A record that does not read as a checkout: its id and what is wrong, never its other fields. */
export interface UnreadableStory {
  checkout_id: string;
  unreadable: boolean;
  problem?: string;
  parked_at?: string;
}

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

/** One unreadable record as a table; the problem quotes a stored value, so it is escaped. */
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
  const stories = await withQueues(
    io,
    async (access) => (await access.line.unreadableCheckouts(SHOWN)).map(parkedStory),
    options.shop,
  );
  if (options.format === 'json') {
    await write(io.stdout, `${JSON.stringify(stories, null, 2)}\n`);
  } else if (stories.length === 0) {
    await write(io.stdout, `no unreadable checkout records in shop ${options.shop}\n`);
  } else {
    await write(io.stdout, `${stories.map(unreadableLines).join('\n\n')}\n`);
  }
}

export function statusUsage(): CliFailure {
  return new CliFailure(
    'checkout status: give a service id, or --unreadable for the records the reconciler parked',
    EXIT.usage,
  );
}
