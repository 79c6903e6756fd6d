import { z } from 'zod';
import { brasiliaDay } from '../money';
import type { MedReturn, Settlement, SingleHint, WebhookHint } from '../payment-provider';
import { centavosOf, isTxid } from './pix-api';

/** The charges one webhook call may make the connector look up (the rest: the sweep's). */
const WEBHOOK_CHARGES_MAX = 20;

export const devolucaoSchema = z.looseObject({
  id: z.string(),
  valor: z.string(),
  status: z.string(),
  /** Absent: `ORIGINAL` (the spec's DevolucaoNatureza); one that does not read, as absent. */
  natureza: z.string().nullish().catch(undefined),
});

/** A Pix received, as the API shows it (`GET /cob/{txid}`'s `pix`, `GET /pix`). */
export const pixSchema = z.looseObject({
  endToEndId: z.string().min(1),
  txid: z.string().nullish(),
  valor: z.string(),
  horario: z.string().optional(),
  devolucoes: z.array(devolucaoSchema).nullish(),
});
export type ReceivedPix = z.output<typeof pixSchema>;

/**
 * A received Pix's money for the payment record: one payment, its end-to-end id and txid,
 * credited to the shop's account as it arrives (a Pix settles at once: it was paid at its
 * `horario`, and its release date is that day in Brasília), taken by the shop's PSP (`cnpj`, its
 * profile's institution). The bank's fee is not in the API Pix: no fee, no net; nor the payer (the
 * Pix object carries only `infoPagador`, a free text): never a guess.
 */
export function settlementOf(pix: ReceivedPix, cnpj: string | undefined): Settlement {
  const at = pix.horario ? new Date(pix.horario) : undefined;
  const valid = at !== undefined && !Number.isNaN(at.getTime());
  return {
    installments: 1,
    pixE2e: pix.endToEndId,
    ...(pix.txid && /^[A-Za-z0-9]{1,35}$/.test(pix.txid) ? { pixTxid: pix.txid } : {}),
    ...(valid ? { releaseDate: brasiliaDay(at), paidAt: at.toISOString() } : {}),
    ...(cnpj ? { institutionCnpj: cnpj } : {}),
  };
}

export function returnedOf(pix: ReceivedPix): { returned: number; pending: number } {
  let returned = 0;
  let pending = 0;
  for (const devolucao of pix.devolucoes ?? []) {
    const centavos = centavosOf(devolucao.valor);
    if (devolucao.status === 'DEVOLVIDO') returned += centavos;
    else if (devolucao.status === 'EM_PROCESSAMENTO') pending += centavos;
  }
  return { returned, pending };
}

/** The naturezas of a return made through the MED (the spec's DevolucaoNatureza). */
const MED_NATUREZAS = new Set(['MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO']);

/**
 * The Pix's return through the MED, if any: the first one under way or made (one refused,
 * NAO_REALIZADO, returned nothing). The receiver cannot ask one (only ORIGINAL or RETIRADA):
 * its bank makes it when the payer's PSP contests the Pix.
 */
export function medReturnOf(pix: ReceivedPix): MedReturn | undefined {
  const med = (pix.devolucoes ?? []).find(
    (d) => MED_NATUREZAS.has(d.natureza ?? '') && d.status !== 'NAO_REALIZADO',
  );
  if (!med) return undefined;
  return {
    natureza: med.natureza ?? '',
    id: med.id,
    amount: { amountMinor: centavosOf(med.valor), currency: 'BRL' },
    status: med.status,
  };
}

/**
 * A Pix's event: its id and what was returned of it, so a devolução's call is news again. Kept
 * as handled only as the bank answered it (a charge read, the sweep's list); a webhook body's is
 * looked up, never kept. `read:` sets these apart from the ids that releases before kept from
 * webhook bodies, some perhaps forged: those match nothing now, and expire within 7 days.
 */
export function eventIdOf(pix: ReceivedPix): string {
  const returns = (pix.devolucoes ?? []).map((d) => `${d.id}.${d.status}`).join(',');
  return `read:${pix.endToEndId}${returns ? `:${returns}` : ''}`;
}

/**
 * A webhook's Pix, held to the specification's patterns (an end-to-end id of 32 letters and
 * digits, a value `0.00`, a devolução's id of 1 to 35): the body is signed by no one.
 */
const webhookPixSchema = pixSchema.extend({
  endToEndId: z.string().regex(/^[a-zA-Z0-9]{32}$/),
  txid: z.string().max(35).nullish(),
  valor: z.string().regex(/^\d{1,10}\.\d{2}$/),
  devolucoes: z
    .array(
      devolucaoSchema.extend({
        id: z.string().regex(/^[a-zA-Z0-9]{1,35}$/),
        status: z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO']),
      }),
    )
    .max(20)
    .nullish(),
});

const webhookSchema = z.looseObject({ pix: z.array(webhookPixSchema).min(1).max(1000) });

function parseReceived(raw: Buffer): ReceivedPix[] | undefined {
  try {
    const parsed = webhookSchema.safeParse(JSON.parse(raw.toString('utf8')));
    return parsed.success ? parsed.data.pix : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The charges an API Pix webhook (`{webhookUrl}/pix`) names: one hint per charge of the
 * connector's, a bounded number per call since the body is signed by no one (the sweep finds
 * what is left out).
 */
export function webhookHintOf(raw: Buffer): WebhookHint {
  const received = parseReceived(raw);
  if (!received) return { ignore: 'the body is not an API Pix webhook' };
  const charges = new Map<string, SingleHint>();
  for (const pix of received) {
    if (charges.size >= WEBHOOK_CHARGES_MAX) break;
    if (pix.txid && isTxid(pix.txid) && !charges.has(pix.txid))
      charges.set(pix.txid, { providerRef: pix.txid, eventId: eventIdOf(pix) });
  }
  const hints = [...charges.values()];
  if (hints.length === 0) return { ignore: 'no Pix of a charge' };
  return hints.length === 1 ? (hints[0] as SingleHint) : { batch: hints };
}
