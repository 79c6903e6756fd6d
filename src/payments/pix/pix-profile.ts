/**
 * How one PSP's API Pix differs from the Central Bank's specification (bacen/pix-api), as data:
 * the adapter (src/payments/pix/pix-provider.ts) has no branch per bank. Each profile is written
 * from that PSP's public documentation, named in `sources`.
 */
import type { Institution } from '../payment-facts';

export type PixPsp =
  'efi' | 'sicredi' | 'sicoob' | 'bb' | 'inter' | 'itau' | 'santander' | 'generic';

export interface PixEnvironment {
  /** The API Pix's base URL, with the PSP's path prefix: `PUT <api>/cob/{txid}`. */
  api: string;
  /** The OAuth2 client-credentials token endpoint (an absolute URL). */
  token: string;
}

export interface PixProfile {
  psp: PixPsp;
  /** As people name the PSP, in messages and docs. */
  label: string;
  /** Its hosts; undefined for `generic` (the shop's document gives `apiUrl`). */
  production?: PixEnvironment;
  /** Its homologation hosts, where it has them. */
  sandbox?: PixEnvironment;
  /**
   * The token path used when the document's `apiUrl` replaces the hosts (a proxy, a test's fake,
   * `generic`): resolved against `apiUrl`'s origin.
   */
  tokenPath: string;
  /**
   * The scopes asked for, space-separated, as the PSP names them; undefined: no `scope` sent (the
   * PSP grants what the application was registered with).
   */
  scopes?: string;
  /** How the client id and secret go to the token endpoint: HTTP Basic, or in the form body. */
  tokenAuth: 'basic' | 'body';
  /**
   * How the webhook is registered: `put` (`PUT /webhook/{chave}` with `{"webhookUrl"}`, as the
   * specification says), or `portal` (only in the PSP's own portal: the connector says so).
   */
  webhook: 'put' | 'portal';
  /** Whether the PSP appends `/pix` to the registered URL when it calls it (the spec: it does). */
  appendsPix: boolean;
  /**
   * A query parameter every call must carry with the shop's application key (Banco do Brasil's
   * `gw-dev-app-key`), where the PSP wants one; the key is the document's `applicationKey`.
   */
  applicationKeyParam?: string;
  /** Extra header the webhook registration needs (Efí: `x-skip-mtls-checking`), if any. */
  webhookHeaders?: Readonly<Record<string, string>>;
  /**
   * The institution that receives the Pix (the NF-e's payment group's CNPJ); absent where it is
   * not one institution for every account (a cooperative system: each cooperative its own CNPJ)
   * or not known (`generic`). Its source is its own.
   */
  institution?: Institution;
  /** Where each value above comes from: the PSP's public pages, and the bacen/pix-api issues. */
  sources: readonly string[];
  /** What was checked against what, and what was assumed, in a sentence or two. */
  checked: string;
}
