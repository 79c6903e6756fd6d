import { createPrivateKey, X509Certificate } from 'node:crypto';
import type Forge from 'node-forge';

/** A shop's client certificate for the PSP's mTLS, as TLS takes it, and when it expires. */
export interface ClientCertificate {
  /** The certificate, then any chain the file carried, PEM. */
  cert: string;
  /** Its private key, PEM (PKCS#8), unencrypted in memory only. */
  key: string;
  notAfter: Date;
  /** The certificate's subject, for `shops verify`. */
  subject: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const PEM_KEY =
  /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/;

/** Thrown with a sentence fit for a shop's field problem (never the key or passphrase). */
export class CertificateProblem extends Error {}

/**
 * The certificate of one PEM text holding the certificate followed by its private key, as
 * banks such as Efí hand them out (a `.pem` of both, or the two files one after the other).
 */
export function certificateFromPem(text: string): ClientCertificate {
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  const keyText = PEM_KEY.exec(text)?.[0];
  if (certificates.length === 0) throw new CertificateProblem('holds no PEM certificate');
  if (!keyText) throw new CertificateProblem('holds no PEM private key after the certificate');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certificates[0] ?? '');
  } catch {
    throw new CertificateProblem('holds a certificate that cannot be read');
  }
  let key: string;
  try {
    key = createPrivateKey(keyText).export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch {
    throw new CertificateProblem('holds a private key that cannot be read (an encrypted key?)');
  }
  if (!x509.checkPrivateKey(createPrivateKey(key))) {
    throw new CertificateProblem("holds a private key that is not the certificate's");
  }
  return {
    cert: certificates.join('\n'),
    key,
    notAfter: new Date(x509.validTo),
    subject: x509.subject.replace(/\n/g, ', '),
  };
}

/**
 * The certificate of a PKCS#12 file (base64) and its passphrase. Read with node-forge, not by
 * OpenSSL: banks still issue PKCS#12 files encrypted with RC2 or 3DES, which OpenSSL 3 (Node's)
 * refuses without its legacy provider.
 */
export function certificateFromPkcs12(base64: string, passphrase: string): ClientCertificate {
  // Loaded by the first PKCS#12 read: a process that reads none (most) is spared node-forge.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const forge = require('node-forge') as typeof Forge;
  let p12: Forge.pkcs12.Pkcs12Pfx;
  try {
    const der = forge.util.decode64(base64.replace(/\s+/g, ''));
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), passphrase);
  } catch {
    throw new CertificateProblem('cannot be opened: not a PKCS#12 file, or not its passphrase');
  }
  const bagsOf = (bagType: string) => p12.getBags({ bagType })[bagType] ?? [];
  const keyBag =
    bagsOf(forge.pki.oids.pkcs8ShroudedKeyBag ?? '')[0] ?? bagsOf(forge.pki.oids.keyBag ?? '')[0];
  const certBags = bagsOf(forge.pki.oids.certBag ?? '');
  if (!keyBag?.key) throw new CertificateProblem('holds no private key');
  const certs = certBags.flatMap((bag) => (bag.cert ? [forge.pki.certificateToPem(bag.cert)] : []));
  // The certificate of the key first: a file may carry its chain beside it.
  const keyPem = forge.pki.privateKeyToPem(keyBag.key);
  const ordered = [...certs].sort(
    (a, b) => Number(matches(b, keyPem)) - Number(matches(a, keyPem)),
  );
  if (ordered.length === 0) throw new CertificateProblem('holds no certificate');
  return certificateFromPem(`${ordered.join('\n')}\n${keyPem}`);
}

function matches(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

export function clientCertificateOf(document: {
  certificate?: string | undefined;
  pkcs12?: string | undefined;
  passphrase?: string | undefined;
}): ClientCertificate {
  if (document.certificate !== undefined) return certificateFromPem(document.certificate);
  if (document.pkcs12 !== undefined)
    return certificateFromPkcs12(document.pkcs12, document.passphrase ?? '');
  throw new CertificateProblem('is missing: give `certificate` (PEM) or `pkcs12`');
}
