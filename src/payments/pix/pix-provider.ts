import { createHash } from 'node:crypto';
import { Agent } from 'node:https';
import { z } from 'zod';
import { AppError } from '../../errors';
import type {
  Settlement,
  CheckoutRequest,
  CreatedCheckout,
  PaymentProvider,
  PaymentStatus,
  ReceivedSweep,
  SingleHint,
  WebhookHint,
  WebhookInput,
} from '../payment-provider';
import { brasiliaDay } from '../money';
import { providerHttp, type ProviderCall, type ProviderRequest } from '../provider-http';
import { centavosOf, isTxid, txidOf, valorOf } from './pix-api';
import type { ClientCertificate } from './pix-certificate';
import type { PixCharges } from './pix-charges';
import type { PixEnvironment, PixProfile } from './pix-profile';

export interface PixSettings {
  profile: PixProfile;
  endpoints: PixEnvironment;
  clientId: string;
  clientSecret: string;
  certificate: ClientCertificate;
  pixKey: string;
  /** Whether a Pix received after its checkout closed is returned to the payer (the default). */
  refundLatePix: boolean;
  /** The application key some PSPs want on every call (`profile.applicationKeyParam`). */
  applicationKey?: string;
  /** The URL the PSP is to call (`PUBLIC_URL/webhooks/pix/<shop>`); it appends `/pix`. */
  webhookUrl: string;
  /** The connector's own page of a checkout's charge: `<publicUrl>/pix/<checkoutId>`. */
  pageUrl(checkoutId: string): string;
  charges: PixCharges;
  timeoutMs?: number;
  clock?: () => Date;
}

/** A token is asked for again this long before the PSP says it expires. */
const TOKEN_MARGIN_MS = 60_000;
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
/** The charges one webhook call may make the connector read (the rest: the sweep's). */
const WEBHOOK_CHARGES_MAX = 20;
/** An idle connection to the bank is closed after this long. */
const IDLE_SOCKET_MS = 30_000;
/** The specification's limit of `solicitacaoPagador`. */
const REQUEST_TEXT_MAX = 140;

/** What the specification says in an error answer (problem+json): its detail and violations. */
function problemMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { title, detail, violacoes, error_description: oauth } = body as Record<string, unknown>;
  const violations = Array.isArray(violacoes)
    ? violacoes.flatMap((v: { propriedade?: unknown; razao?: unknown }) =>
        typeof v?.razao === 'string' ? [`${String(v.propriedade ?? '')}: ${v.razao}`] : [],
      )
    : [];
  const text = [detail ?? title ?? oauth, ...violations].filter((t) => typeof t === 'string');
  return text.length > 0 ? text.join('; ') : undefined;
}

const devolucaoSchema = z.looseObject({
  id: z.string(),
  valor: z.string(),
  status: z.string(),
});

const pixSchema = z.looseObject({
  endToEndId: z.string().min(1),
  txid: z.string().nullish(),
  valor: z.string(),
  horario: z.string().optional(),
  devolucoes: z.array(devolucaoSchema).nullish(),
});
type ReceivedPix = z.output<typeof pixSchema>;

const cobSchema = z.looseObject({
  txid: z.string(),
  status: z.string(),
  valor: z.looseObject({ original: z.string() }),
  pixCopiaECola: z.string().min(1).optional(),
  pix: z.array(pixSchema).nullish(),
});
type Cob = z.output<typeof cobSchema>;

const tokenSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
});

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

/** What was returned of a Pix, and whether it all was (status DEVOLVIDO). */
/**
 * A received Pix's money for the payment record: one payment, its end-to-end id, credited to the
 * shop's account as it arrives (a Pix settles at once: its release date is the day of its
 * `horario`, in Brasília). The bank's fee is not in the API Pix: no fee, no net (never a guess).
 */
function settlementOf(pix: ReceivedPix): Settlement {
  const at = pix.horario ? new Date(pix.horario) : undefined;
  return {
    installments: 1,
    pixE2e: pix.endToEndId,
    ...(at && !Number.isNaN(at.getTime()) ? { releaseDate: brasiliaDay(at) } : {}),
  };
}

function returnedOf(pix: ReceivedPix): { returned: number; pending: number } {
  let returned = 0;
  let pending = 0;
  for (const devolucao of pix.devolucoes ?? []) {
    const centavos = centavosOf(devolucao.valor);
    if (devolucao.status === 'DEVOLVIDO') returned += centavos;
    else if (devolucao.status === 'EM_PROCESSAMENTO') pending += centavos;
  }
  return { returned, pending };
}

/**
 * A shop's Pix straight to its bank, through the Central Bank's API Pix (bacen/pix-api): an
 * immediate charge (`cob`) per checkout, its truth read with `GET /cob/{txid}`, every call over
 * mTLS with the shop's certificate and an OAuth2 client-credentials token kept until shortly
 * before it expires. The bank's deviations are its profile's data (src/payments/pix/
 * pix-profiles.ts). A small axios client: the specification is an OpenAPI, and no bank's SDK
 * speaks for the others.
 */
export class PixProvider implements PaymentProvider {
  readonly name = 'pix';
  private readonly http: ProviderCall;
  private readonly clock: () => Date;
  private token: { value: string; until: number } | undefined;
  private tokenRequest: Promise<string> | undefined;

  constructor(private readonly settings: PixSettings) {
    this.clock = settings.clock ?? (() => new Date());
    const { cert, key } = settings.certificate;
    this.http = providerHttp({
      label: settings.profile.label,
      baseURL: settings.endpoints.api,
      timeoutMs: settings.timeoutMs ?? 20_000,
      headers: {},
      messageOf: problemMessage,
      // The shop's certificate on every call; the PSP's own checked against the system's CAs
      // (with NODE_EXTRA_CA_CERTS). One agent per shop, its connections kept alive.
      httpsAgent: new Agent({
        cert,
        key,
        keepAlive: true,
        maxSockets: 16,
        timeout: IDLE_SOCKET_MS,
      }),
    });
  }

  /** A token: the one held while it lives, else one asked for (one request for all waiting). */
  private async accessToken(): Promise<string> {
    const held = this.token;
    if (held && this.clock().getTime() < held.until) return held.value;
    this.tokenRequest ??= this.newToken().finally(() => {
      this.tokenRequest = undefined;
    });
    return this.tokenRequest;
  }

  private async newToken(): Promise<string> {
    const { profile, clientId, clientSecret } = this.settings;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (profile.scopes) form.set('scope', profile.scopes);
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    if (profile.tokenAuth === 'body') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    const answer = await this.http(
      'get an access token',
      {
        method: 'POST',
        url: this.settings.endpoints.token,
        data: form.toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(profile.tokenAuth === 'basic' ? { authorization: `Basic ${basic}` } : {}),
        },
        ...this.applicationKeyParams(),
      },
      tokenSchema,
    );
    const lifetimeMs = (answer.expires_in ?? 300) * 1000;
    const margin = Math.min(TOKEN_MARGIN_MS, lifetimeMs / 10);
    this.token = {
      value: answer.access_token,
      until: this.clock().getTime() + lifetimeMs - margin,
    };
    return answer.access_token;
  }

  private applicationKeyParams(params?: Record<string, unknown>): { params?: unknown } {
    const name = this.settings.profile.applicationKeyParam;
    const key = this.settings.applicationKey;
    if (!name || !key) return params ? { params } : {};
    return { params: { ...params, [name]: key } };
  }

  /** One call with the token; a 401 (a token the PSP dropped early) asks for a new one, once. */
  private async call<T>(
    action: string,
    request: ProviderRequest,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const send = async (): Promise<T> =>
      this.http(
        action,
        {
          ...request,
          ...this.applicationKeyParams(request.params as Record<string, unknown> | undefined),
          headers: { ...request.headers, authorization: `Bearer ${await this.accessToken()}` },
        },
        schema,
      );
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof AppError) || error.upstreamStatus !== 401) throw error;
      this.token = undefined;
      return send();
    }
  }

  /**
   * The token call itself, over mTLS: refused keys or certificate are PROVIDER_REJECTED. Under
   * TLS 1.3 a server that refuses the client's certificate says so after the client thinks the
   * handshake done: the client sees the connection reset, which here (adding a shop, checking
   * it) means the certificate, not a passing failure.
   */
  async verifyCredentials(): Promise<void> {
    this.token = undefined;
    try {
      await this.accessToken();
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

  /**
   * The charge's truth: a Pix received is paid (returned in full: refunded); else ATIVA is
   * pending (a Pix has no "under way": it arrives or not), and a charge removed can no longer be
   * paid (expired).
   */
  async getStatus(ref: { providerRef: string }): Promise<PaymentStatus> {
    const cob = await this.readCob(ref.providerRef);
    const [pix] = cob.pix ?? [];
    if (pix) {
      const centavos = centavosOf(pix.valor);
      const paid = {
        transactionId: pix.endToEndId,
        amount: { amountMinor: centavos, currency: 'BRL' },
        method: 'pix' as const,
        settlement: settlementOf(pix),
      };
      const { returned } = returnedOf(pix);
      if (returned > 0 && returned >= centavos) {
        return { ...paid, state: 'refunded', reason: 'returned to the payer (devolução)' };
      }
      return { ...paid, state: 'paid' };
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

  /**
   * Removes the charge (`PATCH`, REMOVIDA_PELO_USUARIO_RECEBEDOR), so that no one pays it after
   * the checkout's expiry. A charge that is no longer ATIVA is refused: nothing left to remove,
   * and the status read after says why.
   */
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

  /**
   * A late Pix returned in full with `PUT /pix/{e2eid}/devolucao/{id}`, unless the shop keeps
   * late Pix. Its id is derived from the Pix and from how many of the connector's returns of it
   * the bank did not make (`NAO_REALIZADO`): asking again while one is under way or done asks
   * nothing (the charge read shows it), and after a refusal a new id asks again, since the
   * specification refuses an id used before.
   */
  async returnLatePayment(ref: { providerRef: string }): Promise<string | undefined> {
    if (!this.settings.refundLatePix) return undefined;
    const [pix] = (await this.readCob(ref.providerRef)).pix ?? [];
    if (!pix) return undefined;
    const { returned, pending } = returnedOf(pix);
    const left = centavosOf(pix.valor) - returned - pending;
    const base = `late${createHash('sha256').update(pix.endToEndId).digest('hex').slice(0, 24)}`;
    const refused = (pix.devolucoes ?? []).filter(
      (devolucao) => devolucao.id.startsWith(base) && devolucao.status === 'NAO_REALIZADO',
    ).length;
    const id = refused === 0 ? base : `${base}n${refused}`;
    if (left <= 0) return `returned to the payer (devolução ${id})`;
    await this.call(
      'return the late Pix',
      {
        method: 'PUT',
        url: `/pix/${encodeURIComponent(pix.endToEndId)}/devolucao/${id}`,
        data: { valor: valorOf(left), descricao: 'Pagamento recebido após o prazo do pedido' },
      },
      devolucaoSchema,
    );
    return `return to the payer asked (devolução ${id})`;
  }

  /**
   * The API Pix authenticates its webhook by mTLS, which the proxy in front of the connector
   * terminates: the body is a hint only, each Pix's charge read again (`GET /cob/{txid}`). A
   * Pix with no txid (paid to the key, not to a charge) is no checkout's.
   */
  async parseWebhook(input: WebhookInput): Promise<WebhookHint> {
    const received = parseReceived(input.rawBody);
    if (!received) return { ignore: 'the body is not an API Pix webhook' };
    // One hint per charge, and a bounded number per call: each costs a read at the bank, and
    // the body is signed by no one. What is left out, the sweep finds.
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

  /**
   * The Pix received since the window last handled (`GET /pix?inicio&fim`, every page),
   * overlapping it a little: a webhook lost is found here. One sweep every few minutes per shop,
   * whichever process claims it; after a long outage the windows catch up a few days at a time.
   */
  async receivedPayments(): Promise<ReceivedSweep | undefined> {
    const { charges } = this.settings;
    if (!(await charges.claimSweep(SWEEP_EVERY_MS))) return undefined;
    const now = this.clock().getTime();
    const through = (await charges.sweptUntil())?.getTime() ?? now - FIRST_SWEEP_MS;
    const from = through - SWEEP_OVERLAP_MS;
    const until = new Date(Math.min(now, from + SWEEP_WINDOW_MAX_MS));
    const payments: ReceivedSweep['payments'] = [];
    for (let page = 0, pages = 1; page < pages && page < SWEEP_PAGES_MAX; page += 1) {
      const answer = await this.call(
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
}

/** A Pix's event: its id and what was returned of it, so a devolução's call is news again. */
function eventIdOf(pix: ReceivedPix): string {
  const returns = (pix.devolucoes ?? []).map((d) => `${d.id}.${d.status}`).join(',');
  return returns ? `${pix.endToEndId}:${returns}` : pix.endToEndId;
}

/**
 * A webhook's Pix, held to the specification's patterns (an end-to-end id of 32 letters and
 * digits, a value `0.00`, a devolução's id of 1 to 35): the body is signed by no one, and its
 * ids become event ids kept for days.
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
