import { txidOf } from '../../../src/payments/pix/pix-api';
import type { PixProvider } from '../../../src/payments/pix/pix-provider';
import { eventually, WAIT_DEADLINE_MS } from '../harness';
import { PixWorld } from '../pix-world';
import { pixWebhookBody } from '../provider-endpoint-bodies';
import { testProvider } from './test-provider';

/**
 * The API Pix through a fake PSP over mTLS: a charge (cob) per checkout, paid at once (no Pix
 * "under way"), on the connector's own page. Its webhook is signed by no one (the PSP's mTLS ends
 * at the proxy), so it has no forgery to refuse: it is a hint, read again.
 */
export const pixRow = testProvider({
  name: 'pix',
  title: 'API Pix',
  fake: () => new PixWorld(),
  // A connector in a process of its own trusts the fake PSP's CA as a deployment its bank's.
  env: (fake) => ({ ...fake.env(), NODE_EXTRA_CA_CERTS: fake.certs.files.ca }),
  contract: {
    offers: { card: false, boleto: false, pixUnderWay: false },
    forgeries: [],
    driver: ({ pix }, built) => {
      const paidOf = (txid: string) => {
        const paid = [...pix.payments.values()].find((received) => received.txid === txid);
        if (!paid) throw new Error(`no Pix of ${txid}`);
        return paid;
      };
      return {
        pay: async (_id, ref) => void pix.pay(ref),
        startPix: async () => undefined,
        confirmPix: async (_id, ref) => void pix.pay(ref),
        refund: async (_id, ref) => {
          const paid = paidOf(ref);
          await (built.provider as PixProvider).refundPayment({ providerRef: ref }, 'late_payment');
          for (const devolucao of pix.receivedPix(paid.endToEndId).devolucoes ?? [])
            pix.settleDevolucao(paid.endToEndId, devolucao.id);
        },
        refundsMade: async (_id, ref) =>
          (pix.receivedPix(paidOf(ref).endToEndId).devolucoes ?? []).length,
        // A cob is a Pix charge: what it offers is Pix, once the PSP holds it.
        methodsOffered: async (_id, ref) => {
          if (!pix.cobs.has(ref)) throw new Error(`no cob ${ref}`);
          return ['pix'];
        },
        settleRefunds: async (_id, ref) => {
          const paid = paidOf(ref);
          for (const devolucao of pix.receivedPix(paid.endToEndId).devolucoes ?? [])
            pix.settleDevolucao(paid.endToEndId, devolucao.id);
        },
        webhook: async (_id, ref) => ({
          headers: {},
          query: {},
          rawBody: Buffer.from(JSON.stringify({ pix: [paidOf(ref)] })),
        }),
      };
    },
  },
  flow: ({ pix }, connectorUrl) => ({
    method: 'pix',
    // The customer pays on the connector's own page, the charge's QR code.
    urlOf: (checkoutId) => `${connectorUrl}/pix/${checkoutId}`,
    pay: (checkoutId) => pix.pay(txidOf(checkoutId)),
    // A Pix whose `valor` is not the cob's `valor.original` (as a cob open to a change of amount
    // takes, `modalidadeAlteracao` 1).
    payWrongAmount: (checkoutId) => pix.pay(txidOf(checkoutId), { amount: '0.01' }),
    transactionIdOf: (paid) => paid.endToEndId,
    // The PSP posts to the URL the connector registered for its key (`/pix` appended); the
    // connector registers it once it has started.
    notify: async (paid) => {
      await eventually(() => pix.webhooks.get(paid.chave), WAIT_DEADLINE_MS, 'the Pix webhook');
      return pix.deliverWebhook(paid);
    },
  }),
  record: {
    what: "a Pix through the shop's own bank",
    pay: async ({ pix }, _connectorUrl, checkoutId) =>
      (await pix.payAndNotify(txidOf(checkoutId))).pix,
    // The day it arrived, in Brasília.
    says: (_world, pix, order) => ({
      transactionId: pix.endToEndId,
      method: 'pix',
      installments: 1,
      amounts: { order, interest: 0, paid: order, provider_fee: null, vendor_fee: 0, net: null },
      release_date: new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
        new Date(pix.horario),
      ),
      provider_ids: {
        payment: pix.endToEndId,
        pix_e2e: pix.endToEndId,
        pix_txid: pix.txid ?? null,
      },
      paid_at: new Date(pix.horario).toISOString(),
      // The API Pix's Pix names no payer.
      payer: null,
      card: null,
      // The fake stands for Efí (its env's PIX_PSP): Efí's CNPJ.
      nfe: { tPag: '17', tBand: null, cAut: null, CNPJ: '09089356000118' },
    }),
    // The bank's fee is the bank's: the API Pix does not tell it.
    fee: () => null,
  },
  inbound: { forgedAuth: [], webhookBody: pixWebhookBody },
});
