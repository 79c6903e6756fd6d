import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../errors';
import {
  REFUND_DESCRIPTIONS,
  type CheckoutRequest,
  type CreatedCheckout,
  type PaymentProvider,
  type PaymentStatus,
  type ReceivedSweep,
  type RefundReason,
  type WebhookHint,
  type WebhookInput,
} from '../payment-provider';
import type { ProviderRequest } from '../provider-http';
import { centavosOf, txidOf, valorOf } from './pix-api';
import type { PixCharges } from './pix-charges';
import { PixClient, type PixClientSettings } from './pix-client';
import {
  devolucaoSchema,
  eventIdOf,
  pixSchema,
  medReturnOf,
  returnedOf,
  settlementOf,
  webhookHintOf,
} from './pix-received';
import { sweepReceivedPix } from './pix-sweep';

export interface PixSettings extends PixClientSettings {
  pixKey: string;
  /** Whether a Pix received after its checkout closed is returned to the payer (the default). */
  refundLatePix: boolean;
  /** The URL the PSP is to call (`PUBLIC_URL/webhooks/pix/<shop>`); it appends `/pix`. */
  webhookUrl: string;
  /** The connector's own page of a checkout's charge: `<publicUrl>/pix/<checkoutId>`. */
  pageUrl(checkoutId: string): string;
  charges: PixCharges;
}

/** The specification's limit of `solicitacaoPagador`. */
const REQUEST_TEXT_MAX = 140;

const cobSchema = z.looseObject({
  txid: z.string(),
  status: z.string(),
  valor: z.looseObject({ original: z.string() }),
  pixCopiaECola: z.string().min(1).optional(),
  pix: z.array(pixSchema).nullish(),
});
type Cob = z.output<typeof cobSchema>;

/** A devolução's id starts with its reason's (the rest: the Pix's digest). */
const REFUND_ID_PREFIX: Readonly<Record<RefundReason, string>> = {
  late_payment: 'late',
  plan_expired: 'plan',
  paid_twice: 'twce',
};

/**
 * A shop's Pix straight to its bank, through the Central Bank's API Pix: a `cob` per checkout,
 * read with `GET /cob/{txid}`, over mTLS with an OAuth2 client-credentials token. The bank's
 * deviations are its profile's data (pix-profiles.ts).
 */
export class PixProvider implements PaymentProvider {
  readonly name = 'pix';
  readonly unsignedWebhooks = true;
  private readonly client: PixClient;
  private readonly clock: () => Date;

  constructor(private readonly settings: PixSettings) {
    this.clock = settings.clock ?? (() => new Date());
    this.client = new PixClient({ ...settings, clock: this.clock });
  }

  private call<T>(action: string, request: ProviderRequest, schema: z.ZodType<T>): Promise<T> {
    return this.client.call(action, request, schema);
  }

  /**
   * The token call itself: refused keys or certificate are PROVIDER_REJECTED. Under TLS 1.3 a
   * refused certificate shows as a reset after the handshake: here it means the certificate.
   */
  async verifyCredentials(): Promise<void> {
    try {
      await this.client.newToken();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'PROVIDER_UNAVAILABLE') throw error;
      if (!['ECONNRESET', 'EPROTO'].includes(String(error.cause))) throw error;
      throw new AppError(
        'PROVIDER_REJECTED',
        `${this.settings.profile.label} closed the connection made with this client certificate: is it the one the PSP issued for this account?`,
        { cause: error.cause },
      );
    }
  }

  async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
    const url = this.settings.pageUrl(request.checkoutId);
    const earlier = await this.settings.charges.find(request.checkoutId);
    if (earlier) return { providerRef: earlier.txid, url };
    const txid = txidOf(request.checkoutId);
    const seconds = Math.ceil((request.expiresAt.getTime() - this.clock().getTime()) / 1000);
    const cob = await this.putCob(txid, {
      calendario: { expiracao: Math.max(60, seconds) },
      valor: { original: valorOf(request.amount.amountMinor) },
      chave: this.settings.pixKey,
      solicitacaoPagador: request.description.slice(0, REQUEST_TEXT_MAX),
    });
    if (!cob.pixCopiaECola) {
      throw new AppError(
        'PROVIDER_REJECTED',
        `${this.settings.profile.label}'s charge carries no pixCopiaECola.`,
      );
    }
    const kept = await this.settings.charges.keep({
      checkoutId: request.checkoutId,
      serviceId: request.serviceId,
      txid,
      pixCopiaECola: cob.pixCopiaECola,
      amountMinor: request.amount.amountMinor,
      currency: request.amount.currency,
      expiresAt: request.expiresAt.toISOString(),
      returnUrl: request.returnUrl,
    });
    return { providerRef: kept.txid, url };
  }

  /**
   * `PUT /cob/{txid}`. A txid the PSP already holds (an earlier run that stopped before keeping
   * the charge) is refused by some PSPs: then the charge it holds is read, and used while it is
   * the same amount and still payable.
   */
  private async putCob(txid: string, body: Record<string, unknown>): Promise<Cob> {
    const path = `/cob/${txid}`;
    try {
      return await this.call(
        'create the charge',
        { method: 'PUT', url: path, data: body },
        cobSchema,
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'PROVIDER_REJECTED') throw error;
      const held = await this.call(
        'read the charge',
        { method: 'GET', url: path },
        cobSchema,
      ).catch(() => undefined);
      const same = held?.valor.original === (body['valor'] as { original: string }).original;
      if (held && same && held.status === 'ATIVA') return held;
      throw error;
    }
  }

  private readCob(txid: string): Promise<Cob> {
    return this.call('read the charge', { method: 'GET', url: `/cob/${txid}` }, cobSchema);
  }

  /** A Pix received is paid (returned in full: refunded); else ATIVA pending, removed expired. */
  async getStatus(ref: { providerRef: string }): Promise<PaymentStatus> {
    const cob = await this.readCob(ref.providerRef);
    const [pix] = cob.pix ?? [];
    if (pix) {
      const centavos = centavosOf(pix.valor);
      const paid = {
        transactionId: pix.endToEndId,
        amount: { amountMinor: centavos, currency: 'BRL' },
        method: 'pix' as const,
        settlement: settlementOf(
          { ...pix, txid: pix.txid ?? ref.providerRef },
          this.settings.profile.institution?.cnpj,
        ),
        eventId: eventIdOf(pix),
      };
      const medReturn = medReturnOf(pix);
      const told = { ...paid, ...(medReturn ? { medReturn } : {}) };
      const { returned } = returnedOf(pix);
      if (returned > 0 && returned >= centavos) {
        return { ...told, state: 'refunded', reason: 'returned to the payer (devolução)' };
      }
      return { ...told, state: 'paid' };
    }
    // Concluded with no Pix in the answer (a bank that leaves `pix` out): paid, but the Pix is
    // not known yet; under way, so nothing closes it, until a read names it.
    if (cob.status === 'CONCLUIDA') return { state: 'processing', method: 'pix' };
    // Removed by the receiver (the connector at the checkout's expiry, or the shop in its bank)
    // or by the PSP: no longer payable, as a checkout session expired elsewhere.
    if (cob.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR') {
      return { state: 'expired', reason: 'charge removed by the receiver' };
    }
    if (cob.status === 'REMOVIDA_PELO_PSP') {
      return { state: 'expired', reason: 'charge removed by the PSP' };
    }
    return { state: 'pending' };
  }

  /** Removes the charge; one no longer ATIVA is refused: nothing left to remove. */
  async cancelCheckout(ref: { providerRef: string }): Promise<void> {
    try {
      await this.call(
        'remove the charge',
        {
          method: 'PATCH',
          url: `/cob/${ref.providerRef}`,
          data: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
        },
        z.unknown(),
      );
    } catch (error) {
      const status = error instanceof AppError ? error.upstreamStatus : undefined;
      if (status === 400 || status === 404 || status === 409) return;
      throw error;
    }
  }

  /** A late Pix is returned unless the shop keeps late Pix (`refundLatePix`). */
  get returnsLatePayments(): boolean {
    return this.settings.refundLatePix;
  }

  /**
   * A Pix returned in full with `PUT /pix/{e2eid}/devolucao/{id}`. Its id is derived from the
   * reason, the Pix and how many of the connector's returns of it the bank did not make
   * (`NAO_REALIZADO`): asking again while one is under way or done asks nothing (the charge read
   * shows it), and after a refusal a new id asks again, since the specification refuses an id
   * used before.
   */
  async refundPayment(
    ref: { providerRef: string },
    reason: RefundReason,
  ): Promise<string | undefined> {
    const [pix] = (await this.readCob(ref.providerRef)).pix ?? [];
    if (!pix) return undefined;
    const { returned, pending } = returnedOf(pix);
    const left = centavosOf(pix.valor) - returned - pending;
    const digest = createHash('sha256').update(pix.endToEndId).digest('hex').slice(0, 24);
    const base = `${REFUND_ID_PREFIX[reason]}${digest}`;
    const refused = (pix.devolucoes ?? []).filter(
      (devolucao) => devolucao.id.startsWith(base) && devolucao.status === 'NAO_REALIZADO',
    ).length;
    const id = refused === 0 ? base : `${base}n${refused}`;
    if (left <= 0) return `returned to the payer (devolução ${id})`;
    await this.call(
      'return the Pix',
      {
        method: 'PUT',
        url: `/pix/${encodeURIComponent(pix.endToEndId)}/devolucao/${id}`,
        data: { valor: valorOf(left), descricao: REFUND_DESCRIPTIONS[reason] },
      },
      devolucaoSchema,
    );
    return `return to the payer asked (devolução ${id})`;
  }

  /**
   * The API Pix authenticates its webhook by mTLS, which the proxy in front of the connector
   * terminates: the body is a hint only (`unsignedWebhooks`), each Pix's charge read again
   * (`GET /cob/{txid}`), and the event kept as handled is the one that read names.
   */
  async parseWebhook(input: WebhookInput): Promise<WebhookHint> {
    return webhookHintOf(input.rawBody);
  }

  async registerWebhook(): Promise<string | undefined> {
    const { profile, pixKey, webhookUrl } = this.settings;
    if (profile.webhook !== 'put') return undefined;
    await this.call(
      'register the webhook',
      {
        method: 'PUT',
        url: `/webhook/${encodeURIComponent(pixKey)}`,
        data: { webhookUrl },
        headers: { ...profile.webhookHeaders },
      },
      z.unknown(),
    );
    return webhookUrl;
  }

  receivedPayments(): Promise<ReceivedSweep | undefined> {
    return sweepReceivedPix(this.client, this.settings.charges, this.clock().getTime());
  }
}
