import { randomBytes } from 'node:crypto';
import { request, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { FakePix } from '../../support/fake-pix';
import { serveOnLoopback } from '../../support/loopback-server';
import { makePixCertificates, type PixCertificates } from '../../support/pix-certificates';

// The fake of a PSP's API Pix itself: its mTLS, its OAuth2, and the calls a connector makes.

type Answer = { status: number; headers: IncomingHttpHeaders; body: unknown };
type Call = {
  body?: unknown;
  form?: string;
  token?: string;
  headers?: Record<string, string>;
  tls?: Pick<RequestOptions, 'cert' | 'key' | 'ca'>;
};

let certs: PixCertificates;
let fake: FakePix;
let now = Date.now();
let receiver: Awaited<ReturnType<typeof serveOnLoopback>>;
const received: Array<{ method: string; url: string; body: unknown }> = [];

beforeAll(async () => {
  certs = await makePixCertificates();
  fake = new FakePix({ certs, clock: () => new Date(now) });
  await fake.start();
  receiver = await serveOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', body: JSON.parse(text) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
});

afterAll(async () => {
  await receiver?.close();
  await fake?.stop();
  await certs?.remove();
});

/** An HTTPS call to the fake; by default with the shop's client cert and no explicit CA. */
function call(method: string, path: string, options: Call = {}): Promise<Answer> {
  const payload = options.form ?? (options.body === undefined ? '' : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    ...(options.form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
    ...(options.body !== undefined && { 'content-type': 'application/json' }),
    ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
    ...options.headers,
  };
  const tls = options.tls ?? { cert: certs.clientPem, key: certs.clientPem };
  return new Promise((resolve, reject) => {
    const req = request(`${fake.url}${path}`, { method, headers, agent: false, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text && JSON.parse(text),
        });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function token(scope?: string): Promise<string> {
  const basic = Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64');
  const form = `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`;
  const answer = await call('POST', '/oauth/token', {
    form,
    headers: { authorization: `Basic ${basic}` },
  });
  expect(answer.status).toBe(200);
  return (answer.body as { access_token: string }).access_token;
}

const newTxid = (): string => randomBytes(16).toString('hex');

async function createCob(accessToken: string, valor = '37.00', expiracao = 3600): Promise<string> {
  const txid = newTxid();
  const answer = await call('PUT', `/v2/cob/${txid}`, {
    token: accessToken,
    body: { calendario: { expiracao }, valor: { original: valor }, chave: fake.pixKey },
  });
  expect(answer.status).toBe(201);
  return txid;
}

test('a client without a certificate is refused at the handshake', async () => {
  await expect(call('POST', '/oauth/token', { tls: { ca: certs.caPem } })).rejects.toMatchObject({
    code: expect.stringMatching(/CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|ECONNRESET/),
  });
});

test('a client certificate of another CA is refused at the handshake', async () => {
  const tls = { cert: certs.untrustedClientPem, key: certs.untrustedClientPem, ca: certs.caPem };
  await expect(call('POST', '/oauth/token', { tls })).rejects.toMatchObject({
    code: expect.stringMatching(/UNKNOWN_CA|ECONNRESET|CERTIFICATE/),
  });
});

test('the shop trusts the fake through the default CAs, and a token needs the credentials', async () => {
  const wrong = Buffer.from(`${fake.clientId}:nope`).toString('base64');
  const refused = await call('POST', '/oauth/token', {
    form: 'grant_type=client_credentials',
    headers: { authorization: `Basic ${wrong}` },
  });
  expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  const answer = await call('POST', '/oauth/token', {
    form: `grant_type=client_credentials&client_id=${fake.clientId}&client_secret=${fake.clientSecret}`,
  });
  expect(answer).toMatchObject({
    status: 200,
    body: { token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) },
  });
});

test('an API call without a live token is a 401 problem', async () => {
  const txid = newTxid();
  const answer = await call('GET', `/v2/cob/${txid}`, { token: 'not-a-token' });
  expect(answer).toMatchObject({ status: 401, body: { status: 401 } });
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(fake.requests).toContainEqual({ method: 'GET', path: `/v2/cob/${txid}`, auth: false });
});

test('a cob is created, paid, listed, refunded and notified', async () => {
  const accessToken = await token();
  const txid = newTxid();
  const created = await call('PUT', `/v2/cob/${txid}`, {
    token: accessToken,
    body: { calendario: { expiracao: 3600 }, valor: { original: '37.00' }, chave: fake.pixKey },
  });
  expect(created).toMatchObject({
    status: 201,
    body: { txid, revisao: 0, status: 'ATIVA', valor: { original: '37.00' }, chave: fake.pixKey },
  });
  const cob = created.body as { location: string; pixCopiaECola: string };
  expect(cob.pixCopiaECola).toMatch(/^00020101021226\d\d0014br\.gov\.bcb\.pix25\d\d/);
  expect(cob.pixCopiaECola).toContain(cob.location);
  expect(cob.pixCopiaECola).toMatch(/540537\.005802BR.*6304[0-9A-F]{4}$/);

  const pix = fake.pay(txid);
  expect(pix.endToEndId).toMatch(/^E\d{8}\d{12}[a-z0-9]{11}$/);
  const paid = await call('GET', `/v2/cob/${txid}`, { token: accessToken });
  expect(paid).toMatchObject({
    status: 200,
    body: { status: 'CONCLUIDA', pix: [{ endToEndId: pix.endToEndId, valor: '37.00' }] },
  });

  const window = `inicio=${new Date(now - 60_000).toISOString()}&fim=${new Date(now + 60_000).toISOString()}`;
  const listed = await call('GET', `/v2/pix?${window}&txid=${txid}`, { token: accessToken });
  expect(listed).toMatchObject({
    status: 200,
    body: {
      parametros: { paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeTotalDeItens: 1 } },
      pix: [{ endToEndId: pix.endToEndId, txid }],
    },
  });

  const refundPath = `/v2/pix/${pix.endToEndId}/devolucao/r1`;
  const refund = await call('PUT', refundPath, { token: accessToken, body: { valor: '10.00' } });
  expect(refund).toMatchObject({
    status: 201,
    body: { id: 'r1', valor: '10.00', status: 'EM_PROCESSAMENTO' },
  });
  const again = await call('PUT', refundPath, { token: accessToken, body: { valor: '10.00' } });
  expect(again.body).toEqual(refund.body);
  const tooMuch = await call('PUT', `/v2/pix/${pix.endToEndId}/devolucao/r2`, {
    token: accessToken,
    body: { valor: '27.01' },
  });
  expect(tooMuch).toMatchObject({
    status: 400,
    body: { type: expect.stringMatching(/PixDevolucaoInvalida$/) },
  });
  fake.settleDevolucao(pix.endToEndId, 'r1');
  const settled = await call('GET', refundPath, { token: accessToken });
  expect(settled).toMatchObject({ status: 200, body: { status: 'DEVOLVIDO' } });

  const hook = `${receiver.url}/webhooks/pix-${txid}`;
  const registered = await call('PUT', `/v2/webhook/${fake.pixKey}`, {
    token: accessToken,
    body: { webhookUrl: hook },
  });
  expect(registered.status).toBe(200);
  const delivery = await fake.deliverWebhook(fake.receivedPix(pix.endToEndId));
  expect(delivery).toEqual({ status: 200, body: { ok: true } });
  expect(received.find((r) => r.url === `/webhooks/pix-${txid}/pix`)).toMatchObject({
    method: 'POST',
    body: {
      pix: [
        {
          endToEndId: pix.endToEndId,
          txid,
          valor: '37.00',
          chave: fake.pixKey,
          devolucoes: [{ id: 'r1', status: 'DEVOLVIDO' }],
        },
      ],
    },
  });
});

test('a bad txid, a foreign key and a bad amount are problem+json answers', async () => {
  const accessToken = await token('cob.write cob.read');
  const badTxid = await call('PUT', '/v2/cob/too-short', {
    token: accessToken,
    body: {
      calendario: { expiracao: 3600 },
      valor: { original: '1.5' },
      chave: 'someone@else.example',
    },
  });
  expect(badTxid.status).toBe(400);
  expect(badTxid.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(badTxid.body).toMatchObject({
    type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
    status: 400,
    violacoes: [
      { propriedade: 'txid' },
      { propriedade: 'cob.valor.original' },
      { propriedade: 'cob.chave' },
    ],
  });
  const forbidden = await call(
    'GET',
    `/v2/pix?inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z`,
    { token: accessToken },
  );
  expect(forbidden).toMatchObject({
    status: 403,
    body: { type: expect.stringMatching(/AcessoNegado$/) },
  });
});

test('a removed or expired cob cannot be paid, unless a payment races it', async () => {
  const accessToken = await token();
  const removed = await createCob(accessToken);
  const patch = await call('PATCH', `/v2/cob/${removed}`, {
    token: accessToken,
    body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
  });
  expect(patch).toMatchObject({
    status: 200,
    body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 1 },
  });
  expect(() => fake.pay(removed)).toThrow(/not payable/);
  expect(fake.pay(removed, { force: true }).txid).toBe(removed);

  const expiring = await createCob(accessToken, '5.00', 60);
  now += 61_000;
  try {
    expect(() => fake.pay(expiring)).toThrow(/not payable/);
    const shown = await call('GET', `/v2/cob/${expiring}`, { token: accessToken });
    expect(shown.body).toMatchObject({ status: 'ATIVA' });
  } finally {
    now -= 61_000;
  }
});

test('payAndNotify appends /pix to the registered URL', async () => {
  const accessToken = await token();
  const txid = await createCob(accessToken);
  await call('PUT', `/v2/webhook/${fake.pixKey}`, {
    token: accessToken,
    body: { webhookUrl: `${receiver.url}/n-${txid}` },
  });
  const { pix, status } = await fake.payAndNotify(txid);
  expect(status).toBe(200);
  expect(received.find((r) => r.url === `/n-${txid}/pix`)?.body).toEqual({ pix: [pix] });
});
