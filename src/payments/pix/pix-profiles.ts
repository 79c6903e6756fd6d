/**
 * One record per PSP for the Central Bank's API Pix (bacen/pix-api), conforming to PixProfile.
 * Each value was checked against the PSP's public documentation where it could be read, else an
 * open-source SDK (secondary), else the specification's default; `checked` says which. The
 * research notes and the bacen/pix-api issues behind these records: docs/pix-profiles.md.
 */
import type { PixProfile, PixPsp } from './pix-profile';

/** The scopes the specification names for charges, received Pix and webhooks. */
const SPEC_SCOPES = 'cob.write cob.read pix.read pix.write webhook.write webhook.read';

const SPEC =
  'github:bacen/pix-api openapi.yaml 2.9.0 (securitySchemes.OAuth2, PUT /webhook/{chave})';
const ISSUE_SUFFIX = 'https://github.com/bacen/pix-api/issues/241';
const ISSUE_LIST = 'https://github.com/bacen/pix-api/issues/76';

export const PIX_PROFILES: { readonly [P in PixPsp]: PixProfile } = {
  efi: {
    psp: 'efi',
    institution: {
      name: 'EFÍ S.A. - Instituição de Pagamento',
      cnpj: '09089356000118',
      source:
        'https://gerencianet.com.br/termos-e-contratos/termos-e-condicoes-de-uso-modalidade-empresas ("EFÍ S.A. - IP, ... CNPJ 09.089.356/0001-18")',
    },
    label: 'Efí Bank (formerly Gerencianet)',
    production: {
      api: 'https://pix.api.efipay.com.br/v2',
      token: 'https://pix.api.efipay.com.br/oauth/token',
    },
    sandbox: {
      api: 'https://pix-h.api.efipay.com.br/v2',
      token: 'https://pix-h.api.efipay.com.br/oauth/token',
    },
    tokenPath: '/oauth/token',
    tokenAuth: 'basic',
    webhook: 'put',
    appendsPix: true,
    webhookHeaders: { 'x-skip-mtls-checking': 'true' },
    sources: [
      'https://dev.efipay.com.br/docs/api-pix/credenciais/',
      'https://dev.efipay.com.br/docs/api-pix/webhooks/',
      'github:efipay/sdk-node-apis-efi src/lib/constants.js (APIS.PIX: URL, authorize, /v2 routes)',
      'github:efipay/sdk-node-apis-efi src/lib/endpoints.js (Basic auth, x-skip-mtls-checking)',
      'https://comunidade.sejaefi.com.br/historico?canal=pix&data=2025-01-17&mensagem=webhook',
      SPEC,
      ISSUE_SUFFIX,
    ],
    checked:
      'Hosts, /v2 prefix, /oauth/token, Basic auth with only grant_type and the ' +
      'x-skip-mtls-checking header on PUT /v2/webhook/:chave come from the official Node SDK; ' +
      'Efí docs say scopes are enabled on the application (none sent). The /pix suffix is the ' +
      "spec's rule, seen in issue #241 (Gerencianet) and Efí's community, not in Efí's own page.",
  },
  sicredi: {
    psp: 'sicredi',
    // No institution: a Sicredi account is held at one of its cooperatives, each with its own
    // CNPJ (a cooperative's bylaws name its own); the API does not say which (docs/pix-profiles.md).
    label: 'Sicredi',
    production: {
      api: 'https://api-pix.sicredi.com.br/api/v2',
      token: 'https://api-pix.sicredi.com.br/oauth/token',
    },
    sandbox: {
      api: 'https://api-pix-h.sicredi.com.br/api/v2',
      token: 'https://api-pix-h.sicredi.com.br/oauth/token',
    },
    tokenPath: '/oauth/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'basic',
    webhook: 'put',
    appendsPix: true,
    sources: [
      'https://www.sicredi.com.br/media/produtos/filer_public/2022/12/19/' +
        'guia_tecnico_integracoes_api_pix_sicredi.pdf (cited, not read)',
      'github:laddertech/pypix-api pypix_api/banks/sicredi.py',
      'github:laddertech/pypix-api, its Sicredi viability report (RELATORIO_VIABILIDADE_SICREDI)',
      SPEC,
    ],
    checked:
      "Hosts, /api/v2, /oauth/token per host, Basic auth and form body come from pypix-api's " +
      "reading of Sicredi's technical guide v1.9.5 (secondary; the PDF was not readable here), " +
      'which also says Sicredi downscopes instead of refusing. That source puts PUT/GET ' +
      '/cob/{txid} on /api/v3: unverified. Webhook PUT and the /pix suffix are spec assumptions.',
  },
  sicoob: {
    psp: 'sicoob',
    // No institution: a Sicoob account is held at one of its cooperatives (the system's account
    // terms name the cooperative as the party), each with its own CNPJ; the API does not say which.
    label: 'Sicoob',
    production: {
      api: 'https://api.sicoob.com.br/pix/api/v2',
      token: 'https://auth.sicoob.com.br/auth/realms/cooperado/protocol/openid-connect/token',
    },
    sandbox: {
      api: 'https://sandbox.sicoob.com.br/sicoob/sandbox/pix/api/v2',
      token: 'https://auth.sicoob.com.br/auth/realms/cooperado/protocol/openid-connect/token',
    },
    tokenPath: '/auth/realms/cooperado/protocol/openid-connect/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'body',
    webhook: 'put',
    appendsPix: true,
    sources: [
      'https://developers.sicoob.com.br (portal; pages not readable here)',
      'https://docs.softensistemas.com.br/books/siem-boleto/chapter/' +
        'emissao-sicoob-via-api/export/html',
      'github:laddertech/pypix-api pypix_api/banks/sicoob.py, pypix_api/auth/oauth2.py',
      'github:SharpSistemas/SicoobAPI Sicoob.PIX/SicoobPIX.cs, Sicoob.Shared/Sicoob.cs',
      SPEC,
    ],
    checked:
      'Hosts, /pix/api/v2 and the Keycloak token URL agree across two SDKs and an integrator ' +
      'page quoting Sicoob; the token is a form post of client_id + grant_type + scope, the ' +
      'client authenticated by mTLS (no secret). The sandbox token URL equal to production, the ' +
      'webhook PUT and the /pix suffix are assumptions; SDKs also send a client_id header.',
  },
  bb: {
    psp: 'bb',
    institution: {
      name: 'Banco do Brasil S.A.',
      cnpj: '00000000000191',
      source:
        'Banco do Brasil\'s shareholders\' meeting minutes of 25 April 2018 ("Banco do Brasil S.A. (CNPJ: 00.000.000/0001-91"), a copy at https://document.onl/documents/ata-das-assembleias-gerais-ordinaria-e-social-da-empresa-no-setor-de-autarquias.html',
    },
    label: 'Banco do Brasil',
    production: {
      api: 'https://api-pix.bb.com.br/pix/v2',
      token: 'https://oauth.bb.com.br/oauth/token',
    },
    sandbox: {
      api: 'https://api-pix.hm.bb.com.br/pix/v2',
      token: 'https://oauth.hm.bb.com.br/oauth/token',
    },
    tokenPath: '/oauth/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'basic',
    webhook: 'put',
    appendsPix: true,
    applicationKeyParam: 'gw-dev-app-key',
    sources: [
      'https://developers.bb.com.br (portal; pages not readable here)',
      'https://mkloud.atlassian.net/wiki/spaces/MK30/pages/48699500/PIX+Banco+do+Brasil+API+V2',
      'github:laddertech/pypix-api pypix_api/banks/bb.py',
      'public integrator code found by find_string (api-pix.hm.bb.com.br, gw-dev-app-key)',
      SPEC,
    ],
    checked:
      'Hosts, /pix/v2, oauth(.hm).bb.com.br, Basic auth and the app key as a query parameter ' +
      'come from SDKs and integrator code, not BB pages (secondary). gw-dev-app-key is seen on ' +
      'both hosts; some code uses gw-app-key in production: unverified. Scopes, webhook PUT ' +
      'and the /pix suffix are spec assumptions.',
  },
  inter: {
    psp: 'inter',
    institution: {
      name: 'Banco Inter S.A.',
      cnpj: '00416968000101',
      source:
        'https://inter.co/pra-voce/global-account/contratos-cartoes ("BANCO INTER S.A. ... inscrito no CNPJ sob o nº 00.416.968/0001-01")',
    },
    label: 'Banco Inter',
    production: {
      api: 'https://cdpj.partners.bancointer.com.br/pix/v2',
      token: 'https://cdpj.partners.bancointer.com.br/oauth/v2/token',
    },
    sandbox: {
      api: 'https://cdpj-sandbox.partners.uatinter.co/pix/v2',
      token: 'https://cdpj-sandbox.partners.uatinter.co/oauth/v2/token',
    },
    tokenPath: '/oauth/v2/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'body',
    webhook: 'put',
    appendsPix: true,
    sources: [
      'https://developers.inter.co (portal; pages not readable here)',
      ISSUE_LIST,
      'public integrator code found by find_string (cdpj.partners.bancointer.com.br/pix/v2, ' +
        'cdpj-sandbox.partners.uatinter.co, oauth/v2/token)',
      SPEC,
    ],
    checked:
      'Hosts, /pix/v2, /oauth/v2/token and client_id/client_secret/scope in a form body agree ' +
      'across many integrators (secondary; Inter pages not readable). Webhook by PUT ' +
      '/pix/v2/webhook/{chave} is seen in integrator code; the /pix suffix is a spec assumption. ' +
      'Inter also takes an x-conta-corrente header for multi-account apps.',
  },
  itau: {
    psp: 'itau',
    institution: {
      name: 'Itaú Unibanco S.A.',
      cnpj: '60701190000104',
      source:
        'Itaú\'s "Itaú as a Service" terms ("Itaú Unibanco S.A. ... inscrito no CNPJ sob o nº 60.701.190/0001-04"), a copy at http://download.postoaki.com.br/termouso/termo-uso-itau-openfinance/termos_condicoes_itau.html',
    },
    label: 'Itaú',
    production: {
      api: 'https://secure.api.itau/pix_recebimentos/v2',
      token: 'https://sts.itau.com.br/api/oauth/token',
    },
    sandbox: {
      api: 'https://devportal.itau.com.br/sandboxapi/pix_recebimentos_ext_v2/v2',
      token: 'https://devportal.itau.com.br/api/jwt',
    },
    tokenPath: '/api/oauth/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'body',
    webhook: 'put',
    appendsPix: true,
    sources: [
      'https://devportal.itau.com.br (portal; pages not readable here)',
      'https://github.com/bacen/pix-api/issues/371',
      'public integrator code found by find_string (secure.api.itau/pix_recebimentos, ' +
        'sts.itau.com.br/api/oauth/token, devportal.itau.com.br/sandboxapi)',
      SPEC,
    ],
    checked:
      'Hosts, /pix_recebimentos/v2 and the STS token URL come from integrator code (secondary); ' +
      'the sandbox token URL is a JWT endpoint, likely not a client-credentials one. Body auth, ' +
      'scopes and the /pix suffix are assumptions. Issue #371 (2021) says Itaú once linked ' +
      'webhooks only by e-mail; integrator code now uses PUT /webhook/{chave}: unverified.',
  },
  santander: {
    psp: 'santander',
    institution: {
      name: 'Banco Santander (Brasil) S.A.',
      cnpj: '90400888000142',
      source:
        'Santander\'s general conditions of the current account ("Banco Santander (Brasil) S.A. ... inscrito no CNPJ/MF sob nº 90.400.888/0001-42"), a copy at https://fdocumentos.com/document/condicoesgerais-contacorrente-santander.html',
    },
    label: 'Santander',
    production: {
      api: 'https://trust-pix.santander.com.br/api/v1',
      token: 'https://trust-pix.santander.com.br/oauth/token?grant_type=client_credentials',
    },
    sandbox: {
      api: 'https://trust-pix-h.santander.com.br/api/v1',
      token: 'https://trust-pix-h.santander.com.br/oauth/token?grant_type=client_credentials',
    },
    tokenPath: '/oauth/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'body',
    webhook: 'put',
    appendsPix: true,
    sources: [
      'https://developer.santander.com.br/blog/entendendo-documentacao-das-apis-do-santander',
      'https://pt.scribd.com/document/663740670/santander-api-qrcode-user-guide-v009 (TOC only)',
      'public integrator code found by find_string (trust-pix.santander.com.br)',
      SPEC,
    ],
    checked:
      'Hosts, the /api/v1 prefix and /oauth/token with grant_type in the query and ' +
      'client_id/client_secret in a form body come from integrator code (secondary); ' +
      "Santander's own guide was not readable. Scopes, webhook PUT and the /pix suffix are " +
      'spec assumptions.',
  },
  generic: {
    psp: 'generic',
    // No institution: any PSP; the connector cannot know which.
    label: 'API Pix (generic PSP)',
    tokenPath: '/oauth/token',
    scopes: SPEC_SCOPES,
    tokenAuth: 'basic',
    webhook: 'put',
    appendsPix: true,
    sources: [SPEC, ISSUE_SUFFIX, 'https://github.com/bacen/pix-api/issues/578'],
    checked:
      "The specification's defaults: tokenUrl https://pix.example.com/oauth/token, these " +
      'scopes, PUT /webhook/{chave} and callbacks to {webhookUrl}/pix; Basic auth is what ' +
      'issue #578 describes, as the spec leaves client authentication to RFC 6749.',
  },
};
