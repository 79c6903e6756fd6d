import { z } from 'zod';
import { defineProvider } from '../define-provider';
import { httpUrl } from '../provider-hosts';
import { PIX_API, PIX_OFFER, pixEndpoints } from './pix-api';
import { redisPixCharges } from './pix-charges';
import { CertificateProblem, clientCertificateOf } from './pix-certificate';
import type { PixPsp } from './pix-profile';
import { PIX_PROFILES } from './pix-profiles';
import { PixProvider } from './pix-provider';
import { definePages } from '../provider-pages';
import { pixRoutes } from './pix-routes';

const PSPS = Object.keys(PIX_PROFILES) as [PixPsp, ...PixPsp[]];

/** `true`/`false` in a variable, a boolean in a document. */
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((text) => text === 'true')]);

/**
 * Pix straight to the shop's bank through the Central Bank's API Pix: the PSP's profile, the
 * shop's OAuth2 client and client certificate (mTLS), and the Pix key that receives.
 */
export const pixProvider = defineProvider({
  name: 'pix',
  label: PIX_API.label,
  credential: { kind: 'api-key' },
  fields: {
    psp: z
      .enum(PSPS, { error: `must be one of ${PSPS.join(', ')}` })
      .describe(
        `The bank (PSP) whose API Pix receives: ${PSPS.join(', ')} (docs/payment-providers.md "Pix through the shop's own bank").`,
      ),
    environment: z
      .enum(['production', 'sandbox'], { error: 'must be production or sandbox' })
      .optional()
      .describe("`production` (empty) or `sandbox`: the profile's homologation hosts."),
    apiUrl: httpUrl
      .optional()
      .describe(
        "The API Pix's base URL with its path (`https://.../v2`): required for `generic`; otherwise the profile's host, or a proxy whose origin is in `PROVIDER_API_ORIGINS`.",
      ),
    tokenUrl: httpUrl
      .optional()
      .describe(
        "The OAuth2 token endpoint, when not the profile's (or, with `apiUrl`, the profile's path on its origin).",
      ),
    clientId: z
      .string()
      .min(1)
      .max(200)
      .describe("The OAuth2 client id of the shop's application."),
    clientSecret: z.string().min(1).max(500).describe('Its client secret.'),
    certificate: z
      .string()
      .min(1)
      .max(64_000)
      .optional()
      .describe(
        'The client certificate for mTLS, PEM: the certificate followed by its private key, as the bank hands it out (or `pkcs12` instead).',
      ),
    pkcs12: z
      .string()
      .min(1)
      .max(64_000)
      .optional()
      .describe('The client certificate as a PKCS#12 file, base64 (instead of `certificate`).'),
    passphrase: z.string().max(500).optional().describe("The PKCS#12 file's passphrase."),
    pixKey: z
      .string()
      .min(1)
      .max(77)
      .describe(
        "The Pix key that receives (`chave`): the shop's account's, registered at the PSP.",
      ),
    applicationKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("The application key a PSP wants on every call (Banco do Brasil's developer key)."),
    refundLatePix: flag
      .optional()
      .describe(
        'Whether a Pix received after its checkout was cancelled or expired is returned to the payer (`devolucao`): true (empty) or false.',
      ),
  },
  secrets: ['clientSecret', 'certificate', 'pkcs12', 'passphrase', 'applicationKey'],
  variables: {
    psp: 'PIX_PSP',
    environment: 'PIX_ENVIRONMENT',
    apiUrl: 'PIX_API_URL',
    tokenUrl: 'PIX_TOKEN_URL',
    clientId: 'PIX_CLIENT_ID',
    clientSecret: 'PIX_CLIENT_SECRET',
    certificate: {
      files: [
        {
          name: 'PIX_CERT_FILE',
          description:
            "The path of the client certificate's PEM file (with its private key after it, when the bank hands them out in one file).",
        },
        {
          name: 'PIX_KEY_FILE',
          description:
            "The path of the certificate's private key (PEM), when in a file of its own.",
        },
      ],
      encoding: 'pem',
    },
    pkcs12: {
      files: [
        {
          name: 'PIX_PKCS12_FILE',
          description:
            'The path of the client certificate as a PKCS#12 file (`.p12`, `.pfx`), instead of `PIX_CERT_FILE`.',
        },
      ],
      encoding: 'base64',
    },
    passphrase: 'PIX_PKCS12_PASSPHRASE',
    pixKey: 'PIX_KEY',
    applicationKey: 'PIX_APPLICATION_KEY',
    refundLatePix: 'PIX_REFUND_LATE',
  },
  check: (document) => {
    const problems: Array<{
      field: 'apiUrl' | 'certificate' | 'pkcs12' | 'environment';
      problem: string;
    }> = [];
    const profile = PIX_PROFILES[document.psp];
    if (document.certificate !== undefined && document.pkcs12 !== undefined) {
      problems.push({ field: 'pkcs12', problem: 'give `certificate` or `pkcs12`, not both' });
    } else {
      try {
        clientCertificateOf(document);
      } catch (error) {
        if (!(error instanceof CertificateProblem)) throw error;
        const field = document.pkcs12 !== undefined ? 'pkcs12' : 'certificate';
        problems.push({ field, problem: error.message });
      }
    }
    if (!pixEndpoints(profile, document)) {
      problems.push(
        document.environment === 'sandbox' && profile.production
          ? { field: 'environment', problem: `${profile.label} has no sandbox host: give apiUrl` }
          : { field: 'apiUrl', problem: `is required for ${profile.label}` },
      );
    }
    return problems;
  },
  api: PIX_API,
  offer: PIX_OFFER,
  // The PSP appends `/pix` to the webhook URL registered (`PUT /webhook/{chave}`).
  webhookSuffix: 'pix',
  pages: definePages({ paths: ['/pix'], routes: pixRoutes }),
  settings: (document, common) => {
    const profile = PIX_PROFILES[document.psp];
    const endpoints = pixEndpoints(profile, document);
    if (!endpoints) throw new Error(`no API Pix host for ${profile.label}`);
    const certificate = clientCertificateOf(document);
    return {
      name: document.name,
      ...common,
      credentialExpiry: {
        kind: 'client_certificate',
        expiresAt: certificate.notAfter.toISOString(),
      },
      pix: {
        profile,
        endpoints,
        clientId: document.clientId,
        clientSecret: document.clientSecret,
        certificate,
        pixKey: document.pixKey,
        refundLatePix: document.refundLatePix ?? true,
        ...(document.applicationKey ? { applicationKey: document.applicationKey } : {}),
      },
    };
  },
  build: (settings, environment) => {
    const charges = redisPixCharges(environment.redis, environment.prefix, environment.scope);
    return {
      provider: new PixProvider({
        ...settings.pix,
        charges,
        webhookUrl: `${environment.publicUrl}/webhooks/pix/${environment.shop}`,
        pageUrl: (checkoutId) => `${environment.publicUrl}/pix/${encodeURIComponent(checkoutId)}`,
      }),
      // Its page shows the shop's charges (src/payments/pix/pix-routes.ts).
      pages: charges,
    };
  },
});
