import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { isValidCnpj, isValidCpf } from '../../src/payments/asaas/brazilian-documents';
import { txidOf } from '../../src/payments/pix/pix-api';
import { checkoutId, type InboundWorld } from './provider-endpoint-paths';

/*
 * Bodies of the shape an endpoint of Connect or of a provider expects, with random and hostile
 * fields: the API Pix's webhook, the Asaas link's form, a Stripe Connect event. The test
 * registry's rows (test/support/providers/) name them as their providers' `inbound` shapes; next
 * to inbound-requests.ts's bodies of any shape, they reach past the parsers into the handlers.
 */

/** A body as sent, with its type and any header that goes with it (a signature). */
export interface ShapedBody {
  type: string;
  body: Buffer;
  headers: Record<string, string>;
}

const chars = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DIGITS = '0123456789';

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 100, max: 3000 }).map((n) => 'x'.repeat(n)),
);
const isoTime = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
  .map((date) => date.toISOString());
const anyJson = fc.jsonValue({ maxDepth: 2 });

/** A Pix's `endToEndId` of the specification's form: E, the payer's ISPB, 23 letters or digits. */
const endToEndId = fc
  .tuple(chars(DIGITS, 8, 8), chars(ALNUM, 23, 23))
  .map(([ispb, rest]) => `E${ispb}${rest}`);

/** A txid: the connector's form, of a checkout of the world's shops; or the specification's. */
const txid = (world: InboundWorld) => fc.oneof(checkoutId(world).map(txidOf), chars(ALNUM, 26, 35));

/** An amount as the specification writes it (`0.00`), up to a large one. */
const amount = fc
  .bigInt({ min: 0n, max: 99_999_999_999n })
  .map((centavos) => `${centavos / 100n}.${String(centavos % 100n).padStart(2, '0')}`);

const devolucao = fc.record({
  id: chars(ALNUM, 1, 35),
  rtrId: endToEndId.map((id) => `D${id.slice(1)}`),
  valor: amount,
  horario: fc.record({ solicitacao: isoTime, liquidacao: isoTime }, { requiredKeys: [] }),
  status: fc.constantFrom('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'),
});

/** One Pix of a webhook, every field of the specification's form (a txid of none: to the key). */
const wellFormedPix = (world: InboundWorld) =>
  fc.record(
    {
      endToEndId,
      txid: fc.oneof({ weight: 4, arbitrary: txid(world) }, fc.constant(null)),
      valor: amount,
      horario: isoTime,
      devolucoes: fc.array(devolucao, { maxLength: 20 }),
      chave: fc.uuid(),
      infoPagador: fc.string({ maxLength: 40 }),
    },
    { requiredKeys: ['endToEndId', 'txid', 'valor', 'horario'] },
  );

/** A field of a Pix as the specification does not write it. */
const hostileField = fc.oneof(
  fc.constantFrom('', '1,00', '-1.00', '1e3', 'NaN', 'E'.repeat(33)),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 36, max: 3000 }).map((n) => 'x'.repeat(n)),
  anyJson,
);

/** A well-formed Pix with one field of another form: the whole call is then no webhook. */
const malformedPix = (world: InboundWorld) =>
  fc
    .tuple(
      wellFormedPix(world),
      fc.constantFrom('endToEndId', 'txid', 'valor', 'horario', 'devolucoes'),
      hostileField,
    )
    .map(([pix, field, value]) => ({ ...pix, [field]: value }));

/**
 * The API Pix's webhook, `{"pix": [...]}`: as the specification writes it (names of the world's
 * charges, of none, of the key; repeated; past the 20 a call may look up), or not.
 */
export function pixWebhookBody(world: InboundWorld): fc.Arbitrary<ShapedBody> {
  const pix = wellFormedPix(world);
  return fc
    .oneof(
      { weight: 6, arbitrary: fc.record({ pix: fc.array(pix, { minLength: 1, maxLength: 25 }) }) },
      {
        weight: 1,
        arbitrary: pix.map((one) => ({ pix: Array.from({ length: 30 }, () => one) })),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.array(pix, { maxLength: 5 }), malformedPix(world))
          .map(([good, bad]) => ({ pix: [...good, bad] })),
      },
      { weight: 1, arbitrary: fc.record({ pix: anyJson }) },
      { weight: 1, arbitrary: anyJson },
    )
    .map((value) => json(value));
}

/**
 * The Asaas link's form, each field of Asaas's names as an owner types it or as an attacker does.
 * The CPF or CNPJ is never valid, so no form is ever one Asaas would take: a live link is never
 * completed by a random request (that would change the shop's provider, rightly).
 */
export const asaasForm: fc.Arbitrary<ShapedBody> = fc
  .record(
    {
      name: fc.oneof(fc.constant('Marcenaria Cedro Ltda'), text),
      email: fc.oneof(fc.constant('dono@cedro.example'), text),
      cpfCnpj: fc
        .oneof(
          fc.constantFrom('11.222.333/0001-82', '111.444.777-36', '00000000000', '11111111111111'),
          chars(DIGITS, 0, 20),
          text,
        )
        .filter((document) => !isDocument(document)),
      companyType: fc.oneof(fc.constantFrom('LIMITED', 'MEI', 'INDIVIDUAL'), text),
      mobilePhone: fc.oneof(fc.constant('(11) 98765-4321'), chars(DIGITS, 0, 15), text),
      incomeValue: fc.oneof(fc.constantFrom('25000', '0', '-1', '1e309'), text),
      postalCode: fc.oneof(fc.constant('01310-100'), chars(DIGITS, 0, 10), text),
      address: text,
      addressNumber: text,
      province: text,
      birthDate: fc.oneof(
        isoTime.map((time) => time.slice(0, 10)),
        text,
      ),
    },
    { requiredKeys: [] },
  )
  .map((fields) => ({
    type: 'application/x-www-form-urlencoded',
    body: Buffer.from(new URLSearchParams(fields).toString()),
    headers: {},
  }));

/** Whether a text could be read as a valid CPF or CNPJ, whatever its punctuation or case. */
function isDocument(text: string): boolean {
  const bare = text.toUpperCase().replace(/[^0-9A-Z]/g, '');
  return isValidCpf(bare) || isValidCnpj(bare);
}

/**
 * A Connect event of Stripe's shape, for any account, signed with a secret that is not the
 * vendor's (or not signed): what anyone can post to `/webhooks/stripe-connect`.
 */
export const stripeConnectEvent: fc.Arbitrary<ShapedBody> = fc
  .record({
    id: fc.oneof(
      chars(ALNUM, 14, 14).map((id) => `evt_${id}`),
      text,
    ),
    type: fc.oneof(
      fc.constantFrom('account.updated', 'checkout.session.completed', 'charge.refunded'),
      text,
    ),
    account: fc.oneof(fc.constantFrom('acct_x', 'acct_1Nv0FGQ9RKHgCVdK'), text, anyJson),
    data: fc.record({
      object: fc.record(
        { id: text, charges_enabled: fc.oneof(fc.boolean(), anyJson), metadata: anyJson },
        { requiredKeys: [] },
      ),
    }),
    signedWith: fc.option(fc.constantFrom('whsec_not_the_vendors', ''), { nil: undefined }),
  })
  .map(({ signedWith, ...event }) => {
    const shaped = json(event);
    if (signedWith === undefined) return shaped;
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', signedWith)
      .update(`${timestamp}.${shaped.body.toString()}`)
      .digest('hex');
    return { ...shaped, headers: { 'stripe-signature': `t=${timestamp},v1=${signature}` } };
  });

function json(value: unknown): ShapedBody {
  return { type: 'application/json', body: Buffer.from(JSON.stringify(value)), headers: {} };
}
