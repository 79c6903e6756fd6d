import { z } from 'zod';
import type { ReceivedSweep } from '../payment-provider';
import { isTxid } from './pix-api';
import type { PixCharges } from './pix-charges';
import type { PixClient } from './pix-client';
import { eventIdOf, pixSchema } from './pix-received';

/** How far back the first sweep of received Pix looks, and how much each sweep overlaps the last. */
const FIRST_SWEEP_MS = 60 * 60_000;
const SWEEP_OVERLAP_MS = 10 * 60_000;
/** A sweep runs at most this often per shop, whichever reconciler pass asks. */
const SWEEP_EVERY_MS = 5 * 60_000;
/** The longest window one sweep asks for (PSPs limit `inicio`..`fim`). */
const SWEEP_WINDOW_MAX_MS = 2 * 24 * 3_600_000;
const SWEEP_PAGE_SIZE = 100;
/** The pages one sweep reads at most (10,000 Pix); the next sweep goes on from there. */
const SWEEP_PAGES_MAX = 100;

const pixListSchema = z.looseObject({
  pix: z.array(pixSchema).nullish(),
  parametros: z
    .looseObject({
      paginacao: z
        .looseObject({ paginaAtual: z.number(), quantidadeDePaginas: z.number() })
        .optional(),
    })
    .optional(),
});

/**
 * The Pix received since the window last handled (`GET /pix?inicio&fim`, every page),
 * overlapping it a little: a webhook lost is found here. One sweep every few minutes per shop,
 * whichever process claims it; after a long outage the windows catch up a few days at a time.
 * Each Pix's event id is the bank's own (its list), as a charge read names it.
 */
export async function sweepReceivedPix(
  client: Pick<PixClient, 'call'>,
  charges: PixCharges,
  nowMs: number,
): Promise<ReceivedSweep | undefined> {
  if (!(await charges.claimSweep(SWEEP_EVERY_MS))) return undefined;
  const through = (await charges.sweptUntil())?.getTime() ?? nowMs - FIRST_SWEEP_MS;
  const from = through - SWEEP_OVERLAP_MS;
  const until = new Date(Math.min(nowMs, from + SWEEP_WINDOW_MAX_MS));
  const payments: ReceivedSweep['payments'] = [];
  for (let page = 0, pages = 1; page < pages && page < SWEEP_PAGES_MAX; page += 1) {
    const answer = await client.call(
      'list the Pix received',
      {
        method: 'GET',
        url: '/pix',
        params: {
          inicio: new Date(from).toISOString(),
          fim: until.toISOString(),
          'paginacao.paginaAtual': page,
          'paginacao.itensPorPagina': SWEEP_PAGE_SIZE,
        },
      },
      pixListSchema,
    );
    // Only the connector's charges: the shop's account receives other Pix too.
    for (const pix of answer.pix ?? []) {
      if (!pix.txid || !isTxid(pix.txid)) continue;
      payments.push({
        providerRef: pix.txid,
        eventId: eventIdOf(pix),
        ...(pix.horario ? { receivedAt: pix.horario } : {}),
      });
    }
    pages = answer.parametros?.paginacao?.quantidadeDePaginas ?? 1;
  }
  return { payments, until, done: (handled) => charges.markSwept(handled) };
}
