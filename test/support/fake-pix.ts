import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { PixCertificates } from './pix-certificates';
import type { ProviderFake } from './provider-suite';

/**
 * A loopback fake of a PSP's "API Pix", written from the Central Bank's OpenAPI (bacen/pix-api,
 * openapi.yaml, API Pix 2.9.0), for the calls a checkout makes: immediate charges
 * (`PUT`/`GET`/`PATCH /cob/{txid}`), received Pix (`GET /pix`, `GET /pix/{e2eid}`), refunds
 * (`PUT`/`GET /pix/{e2eid}/devolucao/{id}`) and the Pix webhook (`PUT`/`GET`/`DELETE
 * /webhook/{chave}`, and the callback to `{webhookUrl}/pix`). Behind mutual TLS as every PSP's
 * API is: a client without a certificate of the PSP's CA fails the handshake. OAuth2 client
 * credentials (RFC 6749) give the bearer tokens, with the spec's scopes. Errors are RFC 7807
 * problems with the spec's types (`https://pix.bcb.gov.br/api/v2/error/<Tipo>`).
 *
 * Where the spec leaves a choice, the fake takes the stricter one, so that a connector that
 * works here works at any PSP; each such choice is said where it is made.
 */

/** A cob as `GET /cob/{txid}` answers it, without its `pix` (kept in `payments`). */
export interface FakeCob {
  calendario: { criacao: string; expiracao: number };
  txid: string;
  revisao: number;
  loc: { id: number; location: string; tipoCob: 'cob'; criacao: string };
  location: string;
  status: CobStatus;
  devedor?: Record<string, unknown>;
  valor: { original: string; modalidadeAlteracao?: number };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: Array<{ nome: string; valor: string }>;
  pixCopiaECola: string;
}

export type CobStatus =
  'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** The spec's Devolucao. */
export interface FakeDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza?: string;
  descricao?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
}

/** The spec's Pix: a payment received, as the API and the webhook show it. */
export interface FakePixPayment {
  endToEndId: string;
  txid?: string;
  valor: string;
  chave: string;
  horario: string;
  infoPagador?: string;
  devolucoes?: FakeDevolucao[];
}

export interface FakePixOptions {
  certs: PixCertificates;
  /** Default '/v2' (the major version in the path, as the spec says). */
  basePath?: string;
  tokenPath?: string;
  clientId?: string;
  clientSecret?: string;
  /** The receiving account's key; default a random EVP (a UUID). */
  pixKey?: string;
  tokenTtlSeconds?: number;
  /** Whether the callback goes to `<webhookUrl>/pix`, as the spec's callback says. */
  appendsPix?: boolean;
  clock?: () => Date;
}

type Violacao = { razao: string; propriedade: string };
type Grant = { expiresAtMs: number; scopes: Set<string> };
type StoredPix = FakePixPayment & { devolucoes: FakeDevolucao[] };

const ERROR_TYPE = 'https://pix.bcb.gov.br/api/v2/error/';
/** The error types the fake answers, from the spec's catalogue ("Tratamento de erros"). */
const PROBLEMS = {
  RequisicaoInvalida: [400, 'Requisição inválida.'],
  AcessoNegado: [403, 'Acesso Negado'],
  NaoEncontrado: [404, 'Não Encontrado'],
  ErroInternoDoServidor: [500, 'Erro interno do servidor.'],
  CobNaoEncontrado: [404, 'Cobrança não encontrada para o txid informado.'],
  CobOperacaoInvalida: [400, 'Cobrança inválida.'],
  CobConsultaInvalida: [400, 'Consulta de cobrança inválida.'],
  PixNaoEncontrado: [404, 'Pix não encontrado para o e2eid informado.'],
  PixDevolucaoNaoEncontrada: [404, 'Devolução não encontrada para o e2eid informado.'],
  PixConsultaInvalida: [400, 'Consulta de Pix inválida.'],
  PixDevolucaoInvalida: [400, 'Devolução inválida.'],
  WebhookOperacaoInvalida: [400, 'Webhook inválido.'],
  WebhookNaoEncontrado: [404, 'Webhook não encontrado para a chave informada.'],
} as const satisfies Record<string, readonly [number, string]>;
type ProblemType = keyof typeof PROBLEMS;

/** The scopes of the spec's OAuth2 scheme that the fake's endpoints need. */
const SCOPES = ['cob.write', 'cob.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read'];

// The spec's patterns are unanchored in the yaml; they describe whole values.
const TXID = /^[a-zA-Z0-9]{26,35}$/;
const TXID_FILTER = /^[a-zA-Z0-9]{1,35}$/;
const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
const VALOR = /^\d{1,10}\.\d{2}$/;
const CPF = /^\d{11}$/;
const CNPJ = /^[0-9A-Z]{14}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
/** CobExpiracao's default. */
const DEFAULT_EXPIRACAO_S = 86_400;
/** "90 dias desde a data de liquidação original do pix" (PixDevolucaoInvalida). */
const DEVOLUCAO_WINDOW_MS = 90 * 86_400_000;
/** ISPBs in the ids the fake makes: the payer's PSP (e2eid) and its own (rtrId). */
const PAYER_ISPB = '12345678';
const PSP_ISPB = '87654321';
/** Where the payload locations point; nothing serves them (the fake has no CobPayload). */
const LOCATION_HOST = 'pix.fake-psp.example/qr/v2';
const MERCHANT_NAME = 'LOJA TESTE';
const MERCHANT_CITY = 'SAO PAULO';

/** The default CA list before the first fake trusted its CA, and the CAs of live fakes. */
let defaultCasBeforeFakes: string[] | undefined;
const trustedByLiveFakes: string[] = [];

type PayOptions = { amount?: string; force?: boolean; infoPagador?: string };

export class FakePix implements ProviderFake {
  readonly basePath: string;
  readonly tokenPath: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly pixKey: string;
  readonly cobs = new Map<string, FakeCob>();
  /** Every Pix received, by endToEndId. */
  readonly payments = new Map<string, StoredPix>();
  readonly webhooks = new Map<string, string>();
  readonly webhookRegistrations: Array<{ chave: string; webhookUrl: string; at: Date }> = [];
  readonly tokenRequests: Array<{ at: Date; scope?: string }> = [];
  /** Every request but the token's; `auth`: it carried a live token. */
  readonly requests: Array<{ method: string; path: string; auth: boolean }> = [];
  url = '';
  private readonly certs: PixCertificates;
  private readonly tokenTtlSeconds: number;
  private readonly appendsPix: boolean;
  private readonly clock: () => Date;
  private readonly tokens = new Map<string, Grant>();
  private readonly revisions = new Map<string, FakeCob[]>();
  private readonly cobBodies = new Map<string, string>();
  private readonly webhookCreatedAt = new Map<string, string>();
  private refusingTokens = false;
  private nextLocId = 1;
  private server: Server | undefined;

  constructor(options: FakePixOptions) {
    this.certs = options.certs;
    this.basePath = options.basePath ?? '/v2';
    this.tokenPath = options.tokenPath ?? '/oauth/token';
    this.clientId = options.clientId ?? `Client_Id_${randomBytes(20).toString('hex')}`;
    this.clientSecret = options.clientSecret ?? `Client_Secret_${randomBytes(20).toString('hex')}`;
    this.pixKey = options.pixKey ?? randomUUID();
    this.tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
    this.appendsPix = options.appendsPix ?? true;
    this.clock = options.clock ?? ((): Date => new Date());
  }

  get apiUrl(): string {
    return `${this.url}${this.basePath}`;
  }

  /** Every refund asked for, with the Pix it returns. */
  get devolucoes(): Array<FakeDevolucao & { endToEndId: string }> {
    return [...this.payments.values()].flatMap((pix) =>
      pix.devolucoes.map((d) => ({ ...structuredClone(d), endToEndId: pix.endToEndId })),
    );
  }

  async start(): Promise<string> {
    const { serverKeyPem, serverCertPem, caPem } = this.certs;
    const server = createServer(
      {
        key: serverKeyPem,
        cert: serverCertPem,
        ca: [caPem],
        requestCert: true,
        rejectUnauthorized: true,
      },
      this.buildApp(),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    trustCa(caPem);
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    untrustCa(this.certs.caPem);
  }

  env(): Record<string, string> {
    return {
      PAYMENT_PROVIDER: 'pix',
      PIX_PSP: 'efi',
      PIX_API_URL: this.apiUrl,
      PIX_CLIENT_ID: this.clientId,
      PIX_CLIENT_SECRET: this.clientSecret,
      PIX_CERT_FILE: this.certs.files.clientPem,
      PIX_KEY: this.pixKey,
      PROVIDER_API_ORIGINS: this.url,
    };
  }

  /** While on, the token endpoint refuses the credentials (401 invalid_client). */
  refuseTokens(on: boolean): void {
    this.refusingTokens = on;
  }

  /** Ends every token issued so far, as a PSP may before their expiry. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /**
   * The customer pays `txid`: records a Pix, and an ATIVA cob becomes CONCLUIDA. Throws unless
   * the cob is ATIVA and unexpired; `force` records the Pix anyway (a payment that raced the
   * removal or the expiry), leaving a removed cob's status as it is.
   */
  pay(txid: string, options: PayOptions = {}): FakePixPayment {
    const cob = this.cobs.get(txid);
    if (!cob) throw new Error(`FakePix: no cob ${txid}`);
    if (!options.force && !this.payable(cob)) {
      throw new Error(`FakePix: cob ${txid} is not payable (${cob.status}, or expired)`);
    }
    const now = this.clock();
    const pix: StoredPix = {
      endToEndId: `E${PAYER_ISPB}${minuteStamp(now)}${alnum(11)}`,
      txid,
      valor: options.amount ?? cob.valor.original,
      chave: cob.chave,
      horario: now.toISOString(),
      ...(options.infoPagador !== undefined && { infoPagador: options.infoPagador }),
      devolucoes: [],
    };
    this.payments.set(pix.endToEndId, pix);
    if (cob.status === 'ATIVA') cob.status = 'CONCLUIDA';
    return pixView(pix);
  }

  /** POSTs `{"pix": [pix]}` to the webhook registered for its key, as the PSP's callback. */
  async deliverWebhook(pix: FakePixPayment): Promise<{ status: number; body: unknown }> {
    const webhookUrl = this.webhooks.get(pix.chave);
    if (!webhookUrl) throw new Error(`FakePix: no webhook registered for ${pix.chave}`);
    // The spec's callback is `{$request.body#/webhookUrl}/pix`: plain concatenation, so a URL
    // ending in `?ignorar=` (a trick PSPs document) gets the `/pix` in its query.
    return postJson(this.appendsPix ? `${webhookUrl}/pix` : webhookUrl, { pix: [pix] });
  }

  /** `pay`, then `deliverWebhook` of that Pix. */
  async payAndNotify(
    txid: string,
    options: PayOptions = {},
  ): Promise<{ pix: FakePixPayment; status: number; body: unknown }> {
    const pix = this.pay(txid, options);
    return { pix, ...(await this.deliverWebhook(pix)) };
  }

  /** A Pix received as the API shows it now (with its refunds), e.g. to `deliverWebhook` it. */
  receivedPix(endToEndId: string): FakePixPayment {
    const pix = this.payments.get(endToEndId);
    if (!pix) throw new Error(`FakePix: no Pix ${endToEndId}`);
    return pixView(pix);
  }

  /**
   * A refund reaches its final status. `PUT .../devolucao/{id}` answers EM_PROCESSAMENTO, as the
   * spec's example does; a refund ends only through this hook.
   */
  settleDevolucao(
    endToEndId: string,
    id: string,
    outcome: 'DEVOLVIDO' | 'NAO_REALIZADO' = 'DEVOLVIDO',
    motivo?: string,
  ): FakeDevolucao {
    const devolucao = this.payments.get(endToEndId)?.devolucoes.find((d) => d.id === id);
    if (!devolucao) throw new Error(`FakePix: no devolucao ${id} of ${endToEndId}`);
    devolucao.status = outcome;
    if (outcome === 'DEVOLVIDO') devolucao.horario.liquidacao = this.clock().toISOString();
    if (motivo !== undefined) devolucao.motivo = motivo;
    return structuredClone(devolucao);
  }

  /**
   * A devolução the receiver asks outside the connector (its bank's app): `ORIGINAL`, the whole
   * Pix unless `valor` says; EM_PROCESSAMENTO until `settleDevolucao`.
   */
  receiverReturn(endToEndId: string, valor?: string): FakeDevolucao {
    const pix = this.payments.get(endToEndId);
    if (!pix) throw new Error(`FakePix: no Pix ${endToEndId}`);
    const id = `app${alnum(20)}`;
    return structuredClone(
      this.createDevolucao(pix, id, { valor: valor ?? pix.valor, natureza: 'ORIGINAL' }),
    );
  }

  /**
   * A return the receiver did not ask for: the MED (Mecanismo Especial de Devolução). The payer's
   * PSP contests the Pix, the Central Bank's system blocks and returns the money, and the Pix
   * shows a devolução whose `natureza` is `MED_OPERACIONAL` (BE08), `MED_FRAUDE` (FR01) or
   * `MED_PIX_AUTOMATICO` (REFU), the spec's `DevolucaoNatureza`; it starts EM_PROCESSAMENTO and
   * ends through `settleDevolucao`. `valor` defaults to what is left of the Pix.
   */
  medReturn(
    endToEndId: string,
    natureza: 'MED_OPERACIONAL' | 'MED_FRAUDE' | 'MED_PIX_AUTOMATICO',
    valor?: string,
  ): FakeDevolucao {
    const pix = this.payments.get(endToEndId);
    if (!pix) throw new Error(`FakePix: no Pix ${endToEndId}`);
    const left =
      cents(pix.valor) -
      pix.devolucoes
        .filter((d) => d.status !== 'NAO_REALIZADO')
        .reduce((sum, d) => sum + cents(d.valor), 0);
    const id = `MED${alnum(20)}`;
    return structuredClone(
      this.createDevolucao(pix, id, { valor: valor ?? (left / 100).toFixed(2), natureza }),
    );
  }

  /** The PSP removes an ATIVA cob itself (REMOVIDA_PELO_PSP). */
  removeByPsp(txid: string): void {
    const cob = this.cobs.get(txid);
    if (cob?.status !== 'ATIVA') throw new Error(`FakePix: cob ${txid} is not ATIVA`);
    this.revise(cob, { status: 'REMOVIDA_PELO_PSP' });
  }

  private buildApp(): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.post(this.tokenPath, express.urlencoded({ extended: false }), (req, res) =>
      this.issueToken(req, res),
    );
    app.use((req, res, next) => this.authenticate(req, res, next));
    app.use(this.basePath, express.json(), this.apiRouter());
    app.use((_req: Request, res: Response) => problem(res, 'NaoEncontrado'));
    app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
      const parseFailed = (error as { type?: string }).type === 'entity.parse.failed';
      problem(res, parseFailed ? 'RequisicaoInvalida' : 'ErroInternoDoServidor');
    });
    return app;
  }

  private apiRouter(): express.Router {
    const api = express.Router();
    const route = (
      method: 'get' | 'put' | 'patch' | 'delete',
      path: string,
      needed: string,
      handler: (req: Request, res: Response) => void,
    ): void => {
      api[method](path, scope(needed), (req, res) => handler.call(this, req, res));
    };
    route('put', '/cob/:txid', 'cob.write', this.putCob);
    route('get', '/cob/:txid', 'cob.read', this.getCob);
    route('patch', '/cob/:txid', 'cob.write', this.patchCob);
    route('get', '/pix', 'pix.read', this.listPix);
    route('get', '/pix/:e2eid', 'pix.read', this.getPix);
    route('put', '/pix/:e2eid/devolucao/:id', 'pix.write', this.putDevolucao);
    route('get', '/pix/:e2eid/devolucao/:id', 'pix.read', this.getDevolucao);
    route('put', '/webhook/:chave', 'webhook.write', this.putWebhook);
    route('get', '/webhook/:chave', 'webhook.read', this.getWebhook);
    route('delete', '/webhook/:chave', 'webhook.write', this.deleteWebhook);
    return api;
  }

  // OAuth2 client credentials (RFC 6749 §4.4), the spec's securityScheme. The body must be a
  // form, as the RFC says: some PSPs also take JSON, but a form works at every PSP.
  private issueToken(req: Request, res: Response): void {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const scope = typeof body.scope === 'string' ? body.scope : undefined;
    this.tokenRequests.push({ at: this.clock(), ...(scope !== undefined && { scope }) });
    const [id, secret] = basicCredentials(req.headers.authorization) ?? [
      body.client_id,
      body.client_secret,
    ];
    if (this.refusingTokens || id !== this.clientId || secret !== this.clientSecret) {
      res.status(401).json({ error: 'invalid_client' });
      return;
    }
    // No scope asked: all of them, as PSPs grant the scopes the account holds.
    const scopes = scope === undefined ? SCOPES : scope.split(' ').filter(Boolean);
    const error =
      body.grant_type !== 'client_credentials'
        ? 'unsupported_grant_type'
        : scopes.some((s) => !SCOPES.includes(s)) && 'invalid_scope';
    if (error) {
      res.status(400).json({ error });
      return;
    }
    res.json(this.grant(scopes));
  }

  private grant(scopes: string[]): Record<string, unknown> {
    const accessToken = randomBytes(32).toString('base64url');
    const expiresAtMs = this.clock().getTime() + this.tokenTtlSeconds * 1000;
    this.tokens.set(accessToken, { expiresAtMs, scopes: new Set(scopes) });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.tokenTtlSeconds,
      scope: scopes.join(' '),
    };
  }

  // A missing, unknown or expired token: 401 (RFC 6750). The spec's catalogue has no type for
  // it (AcessoNegado is an authenticated caller's 403), so the problem is RFC 7807's about:blank.
  private authenticate(req: Request, res: Response, next: NextFunction): void {
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = token === undefined ? undefined : this.tokens.get(token);
    const live = grant !== undefined && grant.expiresAtMs > this.clock().getTime();
    this.requests.push({ method: req.method, path: req.path, auth: live });
    if (!live) {
      const detail = 'Token de acesso ausente, inválido ou expirado.';
      res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      res.status(401).type('application/problem+json');
      res.send(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, detail }));
      return;
    }
    res.locals.scopes = grant.scopes;
    next();
  }

  private putCob(req: Request, res: Response): void {
    const txid = param(req, 'txid');
    const body = req.body as unknown;
    const violacoes = [...unless(TXID.test(txid), 'txid'), ...this.cobViolations(body, true)];
    if (violacoes.length) return problem(res, 'CobOperacaoInvalida', violacoes);
    const existing = this.cobs.get(txid);
    if (existing) return this.putExistingCob(res, existing, body);
    const cob = this.createCob(txid, body as Record<string, unknown>);
    this.cobBodies.set(txid, canonicalJson(body));
    res.status(201).json(cob);
  }

  // The spec lets a PUT alter a cob that is still ATIVA. The fake answers a repeated, identical
  // PUT with the cob as it is (a retry) and refuses any other: a txid names one charge, and a
  // connector that reuses one for another amount has a bug the fake should show.
  private putExistingCob(res: Response, cob: FakeCob, body: unknown): void {
    if (this.cobBodies.get(cob.txid) === canonicalJson(body)) {
      res.status(201).json(cob);
      return;
    }
    problem(
      res,
      'CobOperacaoInvalida',
      unless(false, 'txid', 'A cobrança já existe e a requisição busca alterá-la.'),
    );
  }

  private createCob(txid: string, body: Record<string, unknown>): FakeCob {
    const criacao = this.clock().toISOString();
    const location = `${LOCATION_HOST}/${randomUUID().replace(/-/g, '')}`;
    const calendario = (body.calendario ?? {}) as { expiracao?: number };
    const cob: FakeCob = {
      calendario: { criacao, expiracao: calendario.expiracao ?? DEFAULT_EXPIRACAO_S },
      txid,
      revisao: 0,
      loc: { id: this.nextLocId++, location, tipoCob: 'cob', criacao },
      location,
      status: 'ATIVA',
      ...(pick(body, ['devedor']) as Pick<FakeCob, 'devedor'>),
      valor: pick(body.valor as FakeCob['valor'], ['original', 'modalidadeAlteracao']),
      chave: body.chave as string,
      ...(pick(body, ['solicitacaoPagador', 'infoAdicionais']) as Partial<FakeCob>),
      pixCopiaECola: '',
    } as FakeCob;
    cob.pixCopiaECola = brCode(cob);
    this.cobs.set(txid, cob);
    this.revisions.set(txid, [structuredClone(cob)]);
    return cob;
  }

  private getCob(req: Request, res: Response): void {
    const txid = param(req, 'txid');
    const cob = this.cobs.get(txid);
    if (!TXID.test(txid)) return problem(res, 'CobConsultaInvalida', unless(false, 'txid'));
    if (!cob) return problem(res, 'CobNaoEncontrado');
    const revisao = req.query.revisao;
    const wanted = /^\d+$/.test(String(revisao)) ? Number(revisao) : -1;
    const shown = revisao === undefined ? cob : this.revisions.get(txid)?.[wanted];
    if (!shown)
      return problem(res, 'CobConsultaInvalida', unless(false, 'revisao', 'Revisão inexistente.'));
    const pix = [...this.payments.values()].filter((p) => p.txid === txid).map(pixView);
    res.json({ ...shown, ...(pix.length > 0 && { pix }) });
  }

  // PATCH either removes the cob ({status: REMOVIDA_PELO_USUARIO_RECEBEDOR} and nothing else)
  // or revises its fields; either only while ATIVA, and either adds one to revisao.
  private patchCob(req: Request, res: Response): void {
    const cob = this.cobs.get(param(req, 'txid'));
    if (!cob) return problem(res, 'CobNaoEncontrado');
    const body = req.body as unknown;
    const violacoes = isObject(body) ? this.patchViolations(cob, body) : unless(false, 'cob');
    if (violacoes.length) return problem(res, 'CobOperacaoInvalida', violacoes);
    const changes = body as Record<string, unknown>;
    this.revise(
      cob,
      changes.status === undefined
        ? revisedFields(cob, changes)
        : { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
    );
    res.json(cob);
  }

  private patchViolations(cob: FakeCob, body: Record<string, unknown>): Violacao[] {
    if (cob.status !== 'ATIVA') return unless(false, 'cob.status', 'A cobrança não está ATIVA.');
    if (body.status === undefined) return this.cobViolations(body, false);
    const withOthers = COB_FIELDS.some((field) => body[field] !== undefined);
    return [
      ...unless(body.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'cob.status'),
      ...unless(!withOthers, 'cob.status', 'A remoção não pode vir com outras alterações.'),
    ];
  }

  private revise(cob: FakeCob, changes: Partial<FakeCob>): void {
    Object.assign(cob, changes, { revisao: cob.revisao + 1 });
    cob.pixCopiaECola = brCode(cob);
    this.revisions.get(cob.txid)?.push(structuredClone(cob));
  }

  /** The violations of a cob's body: CobSolicitada to create, CobRevisada to revise. */
  private cobViolations(body: unknown, creating: boolean): Violacao[] {
    if (!isObject(body)) return unless(false, 'cob');
    const { calendario, valor, chave, devedor, solicitacaoPagador, infoAdicionais } = body;
    return [
      ...calendarioViolations(calendario, creating),
      ...valorViolations(valor, creating),
      ...this.chaveViolations(chave, creating),
      ...unless(devedor === undefined || validDevedor(devedor), 'cob.devedor'),
      ...unless(fits(solicitacaoPagador, 140), 'cob.solicitacaoPagador'),
      ...unless(
        infoAdicionais === undefined || validInfoAdicionais(infoAdicionais),
        'cob.infoAdicionais',
      ),
      // The fake has no /loc: a loc.id always names a location that does not exist.
      ...unless(
        body.loc === undefined,
        'cob.loc.id',
        'O location referenciado por loc.id inexiste.',
      ),
    ];
  }

  // The PSP takes only the keys of the receiving account ("O campo cob.chave corresponde a uma
  // conta que não pertence a este usuário recebedor").
  private chaveViolations(chave: unknown, required: boolean): Violacao[] {
    if (chave === undefined && !required) return [];
    if (typeof chave !== 'string' || chave.length === 0 || chave.length > 77) {
      return unless(false, 'cob.chave');
    }
    return unless(chave === this.pixKey, 'cob.chave', 'A chave não pertence a este recebedor.');
  }

  private payable(cob: FakeCob): boolean {
    // CobrancaStatus is the record's status and "não guarda relação com o fato de a cobrança
    // encontrar-se vencida ou expirada": an expired cob stays ATIVA, and cannot be paid.
    const expiresAtMs = Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000;
    return cob.status === 'ATIVA' && this.clock().getTime() < expiresAtMs;
  }

  private listPix(req: Request, res: Response): void {
    const query = pixQueryOf(req.query);
    if ('violacoes' in query) return problem(res, 'PixConsultaInvalida', query.violacoes);
    const { inicioMs, fimMs, paginaAtual, itensPorPagina } = query;
    const found = [...this.payments.values()]
      .filter((pix) => {
        const at = Date.parse(pix.horario);
        return at >= inicioMs && at <= fimMs && matchesPixFilters(pix, req.query);
      })
      .sort((a, b) => Date.parse(a.horario) - Date.parse(b.horario));
    const page = found.slice(paginaAtual * itensPorPagina, (paginaAtual + 1) * itensPorPagina);
    const paginacao = {
      paginaAtual,
      itensPorPagina,
      // Paginacao's minimum is 1, even for an empty list.
      quantidadeDePaginas: Math.max(1, Math.ceil(found.length / itensPorPagina)),
      quantidadeTotalDeItens: found.length,
    };
    const filters = pick(req.query, ['inicio', 'fim', 'txid', 'txIdPresente', 'devolucaoPresente']);
    res.json({ parametros: { ...filters, paginacao }, pix: page.map(pixView) });
  }

  private getPix(req: Request, res: Response): void {
    const pix = this.payments.get(param(req, 'e2eid'));
    if (!pix) return problem(res, 'PixNaoEncontrado');
    res.json(pixView(pix));
  }

  private putDevolucao(req: Request, res: Response): void {
    const pix = this.payments.get(param(req, 'e2eid'));
    if (!pix) return problem(res, 'PixNaoEncontrado');
    const id = param(req, 'id');
    const body = req.body as unknown;
    const existing = pix.devolucoes.find((d) => d.id === id);
    // Same id, same request: a retry, answered with the refund it made. The spec refuses an id
    // "já utilizado por outra requisição", so a different request under that id is refused.
    if (existing && isObject(body) && sameDevolucaoRequest(existing, body)) {
      res.status(201).json(existing);
      return;
    }
    const violacoes = existing
      ? unless(false, 'id', 'O id já foi utilizado por outra devolução deste Pix.')
      : this.devolucaoViolations(pix, id, body);
    if (violacoes.length) return problem(res, 'PixDevolucaoInvalida', violacoes);
    res.status(201).json(this.createDevolucao(pix, id, body as Record<string, unknown>));
  }

  private devolucaoViolations(pix: StoredPix, id: string, body: unknown): Violacao[] {
    if (!DEVOLUCAO_ID.test(id)) return unless(false, 'id');
    if (!isObject(body)) return unless(false, 'devolucao');
    const own = [
      ...amountViolations(body.valor, 'devolucao.valor'),
      ...unless(fits(body.descricao, 140), 'devolucao.descricao'),
      // A Pix of a cob is a common Pix, whose refund can only be ORIGINAL.
      ...unless([undefined, 'ORIGINAL'].includes(body.natureza as string), 'devolucao.natureza'),
    ];
    if (own.length) return own;
    const refundedCents = pix.devolucoes
      .filter((d) => d.status !== 'NAO_REALIZADO')
      .reduce((sum, d) => sum + cents(d.valor), 0);
    const ageMs = this.clock().getTime() - Date.parse(pix.horario);
    return [
      ...unless(
        refundedCents + cents(body.valor as string) <= cents(pix.valor),
        'devolucao.valor',
        'As devoluções excederiam o valor do Pix.',
      ),
      ...unless(ageMs <= DEVOLUCAO_WINDOW_MS, 'e2eid', 'O Pix passou da janela de 90 dias.'),
    ];
  }

  private createDevolucao(
    pix: StoredPix,
    id: string,
    body: Record<string, unknown>,
  ): FakeDevolucao {
    const now = this.clock();
    const devolucao = {
      id,
      rtrId: `D${PSP_ISPB}${minuteStamp(now)}${alnum(11)}`,
      valor: body.valor as string,
      ...pick(body, ['natureza', 'descricao']),
      horario: { solicitacao: now.toISOString() },
      status: 'EM_PROCESSAMENTO',
    } as FakeDevolucao;
    pix.devolucoes.push(devolucao);
    return devolucao;
  }

  private getDevolucao(req: Request, res: Response): void {
    const pix = this.payments.get(param(req, 'e2eid'));
    const devolucao = pix?.devolucoes.find((d) => d.id === param(req, 'id'));
    if (!devolucao) return problem(res, 'PixDevolucaoNaoEncontrada');
    res.json(devolucao);
  }

  // The spec's webhookUrl is a `uri` (its example is https; a PSP calls back over mTLS). The fake
  // takes http too: in tests the connector listens on plain loopback.
  private putWebhook(req: Request, res: Response): void {
    const chave = param(req, 'chave');
    const webhookUrl = (req.body as { webhookUrl?: unknown } | undefined)?.webhookUrl;
    const violacoes = [
      ...unless(chave === this.pixKey, 'chave', 'A chave não pertence a este recebedor.'),
      ...unless(isHttpUrl(webhookUrl), 'webhook.webhookUrl'),
    ];
    if (violacoes.length) return problem(res, 'WebhookOperacaoInvalida', violacoes);
    const at = this.clock();
    this.webhooks.set(chave, webhookUrl as string);
    this.webhookCreatedAt.set(chave, at.toISOString());
    this.webhookRegistrations.push({ chave, webhookUrl: webhookUrl as string, at });
    // The spec's 200 has no body.
    res.status(200).end();
  }

  private getWebhook(req: Request, res: Response): void {
    const chave = param(req, 'chave');
    const webhookUrl = this.webhooks.get(chave);
    if (!webhookUrl) return problem(res, 'WebhookNaoEncontrado');
    res.json({ webhookUrl, chave, criacao: this.webhookCreatedAt.get(chave) });
  }

  private deleteWebhook(req: Request, res: Response): void {
    if (!this.webhooks.delete(param(req, 'chave'))) return problem(res, 'WebhookNaoEncontrado');
    res.status(204).end();
  }
}

/** The top-level fields of a cob that a PATCH may revise. */
const COB_FIELDS = [
  'calendario',
  'devedor',
  'loc',
  'valor',
  'chave',
  'solicitacaoPagador',
  'infoAdicionais',
];

/** Adds `caPem` to Node's default CAs (what NODE_EXTRA_CA_CERTS does at a process's start). */
function trustCa(caPem: string): void {
  defaultCasBeforeFakes ??= getCACertificates('default');
  trustedByLiveFakes.push(caPem);
  setDefaultCACertificates([...defaultCasBeforeFakes, ...trustedByLiveFakes]);
}

/** Takes back one `trustCa`; the list before the first is back once no fake is left. */
function untrustCa(caPem: string): void {
  const at = trustedByLiveFakes.indexOf(caPem);
  if (at >= 0) trustedByLiveFakes.splice(at, 1);
  if (!defaultCasBeforeFakes) return;
  setDefaultCACertificates([...defaultCasBeforeFakes, ...trustedByLiveFakes]);
  if (trustedByLiveFakes.length === 0) defaultCasBeforeFakes = undefined;
}

/** Refuses a request whose token lacks `needed` (the spec's scopes; 403 AcessoNegado). */
function scope(needed: string) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if ((res.locals.scopes as Set<string>).has(needed)) return next();
    problem(res, 'AcessoNegado');
  };
}

function problem(res: Response, type: ProblemType, violacoes?: Violacao[]): void {
  const [status, title] = PROBLEMS[type];
  const detail = violacoes?.map((v) => v.razao).join(' ') ?? title;
  const body = {
    type: `${ERROR_TYPE}${type}`,
    title,
    status,
    detail,
    ...(violacoes && { violacoes }),
  };
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
}

/** No violation when `ok`; else one of `propriedade`, by default that it breaks the schema. */
function unless(
  ok: boolean,
  propriedade: string,
  razao = `O campo ${propriedade} não respeita o _schema_.`,
): Violacao[] {
  return ok ? [] : [{ razao, propriedade }];
}

function param(req: Request, name: string): string {
  return String(req.params[name]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An optional string of at most `maxLength`. */
function fits(text: unknown, maxLength: number): boolean {
  return text === undefined || (typeof text === 'string' && text.length <= maxLength);
}

function calendarioViolations(calendario: unknown, required: boolean): Violacao[] {
  if (calendario === undefined && !required) return [];
  if (!isObject(calendario)) return unless(false, 'cob.calendario');
  const { expiracao } = calendario;
  const valid =
    expiracao === undefined || (Number.isInteger(expiracao) && (expiracao as number) > 0);
  return unless(valid, 'cob.calendario.expiracao', 'O campo expiracao é igual ou menor que zero.');
}

function valorViolations(valor: unknown, required: boolean): Violacao[] {
  if (valor === undefined && !required) return [];
  if (!isObject(valor)) return unless(false, 'cob.valor');
  return [
    ...(valor.original === undefined && !required
      ? []
      : amountViolations(valor.original, 'cob.valor.original')),
    ...unless(
      [undefined, 0, 1].includes(valor.modalidadeAlteracao as number),
      'cob.valor.modalidadeAlteracao',
    ),
  ];
}

/** A money string of the spec (`\d{1,10}\.\d{2}`), above zero. */
function amountViolations(amount: unknown, propriedade: string): Violacao[] {
  if (typeof amount !== 'string' || !VALOR.test(amount)) return unless(false, propriedade);
  return unless(cents(amount) > 0, propriedade, `O campo ${propriedade} é zero.`);
}

// devedor is PessoaFisica {cpf, nome} or PessoaJuridica {cnpj, nome}, never both documents.
function validDevedor(devedor: unknown): boolean {
  if (!isObject(devedor)) return false;
  const { cpf, cnpj, nome } = devedor;
  const document = cpf === undefined ? cnpj : cpf;
  const pattern = cpf === undefined ? CNPJ : CPF;
  return (
    (cpf === undefined || cnpj === undefined) &&
    typeof document === 'string' &&
    pattern.test(document) &&
    typeof nome === 'string' &&
    nome.length > 0 &&
    nome.length <= 200
  );
}

function validInfoAdicionais(info: unknown): boolean {
  return (
    Array.isArray(info) &&
    info.length <= 50 &&
    info.every(
      (item: unknown) =>
        isObject(item) &&
        typeof item.nome === 'string' &&
        fits(item.nome, 50) &&
        typeof item.valor === 'string' &&
        fits(item.valor, 200),
    )
  );
}

/** The fields a revising PATCH changes, merged into the cob's. */
function revisedFields(cob: FakeCob, changes: Record<string, unknown>): Partial<FakeCob> {
  const calendario = changes.calendario as { expiracao?: number } | undefined;
  const valor = changes.valor as Partial<FakeCob['valor']> | undefined;
  return {
    ...(calendario?.expiracao !== undefined && {
      calendario: { ...cob.calendario, expiracao: calendario.expiracao },
    }),
    ...(valor && { valor: { ...cob.valor, ...pick(valor, ['original', 'modalidadeAlteracao']) } }),
    ...(pick(changes, [
      'devedor',
      'chave',
      'solicitacaoPagador',
      'infoAdicionais',
    ]) as Partial<FakeCob>),
  };
}

type PixQuery = { inicioMs: number; fimMs: number; paginaAtual: number; itensPorPagina: number };

/** GET /pix's query (ParametrosConsultaPix), or its violations. */
function pixQueryOf(query: Request['query']): PixQuery | { violacoes: Violacao[] } {
  const inicioMs = timestampOf(query.inicio) ?? NaN;
  const fimMs = timestampOf(query.fim) ?? NaN;
  const paginaAtual = integerOf(query['paginacao.paginaAtual'], 0);
  const itensPorPagina = integerOf(query['paginacao.itensPorPagina'], 100);
  const { txid } = query;
  const violacoes = [
    ...unless(!Number.isNaN(inicioMs), 'inicio'),
    ...unless(!Number.isNaN(fimMs), 'fim'),
    ...unless(!(fimMs < inicioMs), 'fim', 'O parâmetro fim é anterior ao parâmetro inicio.'),
    ...unless(paginaAtual >= 0, 'paginacao.paginaAtual'),
    ...unless(itensPorPagina >= 1 && itensPorPagina <= 1000, 'paginacao.itensPorPagina'),
    ...unless(txid === undefined || (typeof txid === 'string' && TXID_FILTER.test(txid)), 'txid'),
  ];
  return violacoes.length ? { violacoes } : { inicioMs, fimMs, paginaAtual, itensPorPagina };
}

function matchesPixFilters(pix: StoredPix, query: Request['query']): boolean {
  const { txid, txIdPresente, devolucaoPresente } = query;
  return (
    (txid === undefined || pix.txid === txid) &&
    (txIdPresente === undefined || String(pix.txid !== undefined) === txIdPresente) &&
    (devolucaoPresente === undefined || String(pix.devolucoes.length > 0) === devolucaoPresente)
  );
}

/** An RFC 3339 timestamp's milliseconds, or undefined. */
function timestampOf(value: unknown): number | undefined {
  return typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : undefined;
}

/** A query's integer, `fallback` when absent, NaN when not an integer. */
function integerOf(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
}

function sameDevolucaoRequest(existing: FakeDevolucao, body: Record<string, unknown>): boolean {
  return (
    body.valor === existing.valor &&
    body.natureza === existing.natureza &&
    body.descricao === existing.descricao
  );
}

/** A Pix as the API shows it: `devolucoes` only when there are some (the field is optional). */
function pixView(pix: StoredPix): FakePixPayment {
  const { devolucoes, ...rest } = structuredClone(pix);
  return devolucoes.length > 0 ? { ...rest, devolucoes } : rest;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function basicCredentials(header: string | undefined): [string, string] | undefined {
  const encoded = /^Basic (\S+)$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** The fields of `source` named in `keys` that are set. */
function pick<T extends object>(source: T, keys: string[]): T {
  const entries = Object.entries(source).filter(([k, v]) => keys.includes(k) && v !== undefined);
  return Object.fromEntries(entries) as T;
}

/** JSON with sorted keys, so two bodies compare equal whatever their keys' order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

function cents(amount: string): number {
  return Number(amount.replace('.', ''));
}

/** yyyyMMddHHmm in UTC, as in an endToEndId. */
function minuteStamp(at: Date): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 12);
}

function alnum(length: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((byte) => letters[byte % letters.length]).join('');
}

/** One EMV field: id, two-digit length, value. */
function emv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * The cob's BR Code (Manual de Padrões para Iniciação do Pix): a dynamic code (01 = 12) whose
 * merchant account (26) carries the location, with the amount (54) and txid '***' (62.05), as
 * dynamic codes have, closed by the CRC16 of field 63.
 */
function brCode(cob: FakeCob): string {
  const payload = [
    emv('00', '01'),
    emv('01', '12'),
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('25', cob.location)),
    emv('52', '0000'),
    emv('53', '986'),
    emv('54', cob.valor.original),
    emv('58', 'BR'),
    emv('59', MERCHANT_NAME),
    emv('60', MERCHANT_CITY),
    emv('62', emv('05', '***')),
    '6304',
  ].join('');
  return `${payload}${crc16(payload)}`;
}

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF), four uppercase hex digits. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

// A request of its own (no agent, so no kept-alive socket outlives the call) and no client
// certificate: a PSP's real callback uses mTLS, to a proxy that tests leave out.
async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const headers = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  };
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parsedBody(chunks) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function parsedBody(chunks: Buffer[]): unknown {
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
