import { Agent } from 'node:https';
import { z } from 'zod';
import { AppError } from '../../errors';
import { providerHttp, type ProviderCall, type ProviderRequest } from '../provider-http';
import type { ClientCertificate } from './pix-certificate';
import type { PixEnvironment, PixProfile } from './pix-profile';

export interface PixClientSettings {
  profile: PixProfile;
  endpoints: PixEnvironment;
  clientId: string;
  clientSecret: string;
  certificate: ClientCertificate;
  /** The application key some PSPs want on every call (`profile.applicationKeyParam`). */
  applicationKey?: string;
  timeoutMs?: number;
  clock?: () => Date;
}

/** A token is asked for again this long before the PSP says it expires. */
const TOKEN_MARGIN_MS = 60_000;
/** An idle connection to the bank is closed after this long. */
const IDLE_SOCKET_MS = 30_000;

const tokenSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
});

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

/**
 * One shop's client of its PSP's API Pix: every call over mTLS with the shop's certificate (the
 * PSP's own checked against the system's CAs, with NODE_EXTRA_CA_CERTS), with an OAuth2
 * client-credentials token kept until shortly before it expires.
 */
export class PixClient {
  private readonly http: ProviderCall;
  private readonly clock: () => Date;
  private token: { value: string; until: number } | undefined;
  private tokenRequest: Promise<string> | undefined;

  constructor(private readonly settings: PixClientSettings) {
    this.clock = settings.clock ?? (() => new Date());
    const { cert, key } = settings.certificate;
    this.http = providerHttp({
      label: settings.profile.label,
      baseURL: settings.endpoints.api,
      timeoutMs: settings.timeoutMs ?? 20_000,
      headers: {},
      messageOf: problemMessage,
      httpsAgent: new Agent({
        cert,
        key,
        keepAlive: true,
        maxSockets: 16,
        timeout: IDLE_SOCKET_MS,
      }),
    });
  }

  /** One call with the token; a 401 (a token the PSP dropped early) asks for a new one, once. */
  async call<T>(action: string, request: ProviderRequest, schema: z.ZodType<T>): Promise<T> {
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

  /** Drops the token held and asks for one now: the token call alone checks the credentials. */
  async newToken(): Promise<void> {
    this.token = undefined;
    await this.accessToken();
  }

  /** A token: the one held while it lives, else one asked for (one request for all waiting). */
  private async accessToken(): Promise<string> {
    const held = this.token;
    if (held && this.clock().getTime() < held.until) return held.value;
    this.tokenRequest ??= this.askToken().finally(() => {
      this.tokenRequest = undefined;
    });
    return this.tokenRequest;
  }

  private async askToken(): Promise<string> {
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
}
