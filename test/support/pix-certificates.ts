import {
  constants,
  generateKeyPair,
  privateEncrypt,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';

/**
 * The certificates of a Pix PSP's mutual TLS, made fresh for a test in this process (Node's
 * crypto makes the keys, node-forge the certificates and the PKCS#12: no openssl command, so the
 * tests need nothing a fresh machine lacks): the
 * PSP's CA, the PSP's server certificate for loopback, and the shop's client certificate, which
 * the PSP issues (Efí hands it out as one PEM, or as a PKCS#12), plus a client certificate of an
 * unrelated CA that the PSP must refuse.
 */
export interface PixCertificates {
  dir: string;
  /** The CA that signed the server and client certs. */
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** clientCertPem + clientKeyPem concatenated (as Efí hands them out). */
  clientPem: string;
  clientNotAfter: Date;
  /** Cert+key from another CA. */
  untrustedClientPem: string;
  clientPkcs12Base64: string;
  pkcs12Passphrase: string;
  /** Paths in dir. */
  files: { ca: string; clientCert: string; clientKey: string; clientPem: string; pkcs12: string };
  /** rm -rf dir */
  remove(): Promise<void>;
}

const newKeyPair = promisify(generateKeyPair);
// forge's message digests.
const { md: digests } = forge;

// Short-lived like the client certs PSPs hand out, so a test can reason about renewal.
const CLIENT_DAYS = 90;
const CA_DAYS = 3650;
const DAY_MS = 86_400_000;

interface Made {
  certPem: string;
  keyPem: string;
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
}

type Usage = 'ca' | 'server' | 'client';

/** The extensions of each kind of certificate, as the PSP's would have them. */
function extensionsOf(usage: Usage, issuer: forge.pki.Certificate | undefined): object[] {
  const authority = issuer
    ? [
        {
          name: 'authorityKeyIdentifier',
          keyIdentifier: issuer.generateSubjectKeyIdentifier().getBytes(),
        },
      ]
    : [];
  if (usage === 'ca') {
    return [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ];
  }
  return [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: usage === 'server', clientAuth: usage === 'client' },
    ...(usage === 'server'
      ? [
          {
            name: 'subjectAltName',
            altNames: [
              { type: 7, ip: '127.0.0.1' },
              { type: 2, value: 'localhost' },
            ],
          },
        ]
      : []),
    ...authority,
  ];
}

/** A key and a certificate: self-signed (a CA), or signed by `issuer`. */
async function make(
  subject: { O: string; CN: string },
  usage: Usage,
  days: number,
  issuer?: Made,
): Promise<Made> {
  const pair = await newKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(pair.privateKey) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey);
  // A positive random serial (its first byte below 0x80).
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60_000);
  cert.validity.notAfter = new Date(now + days * DAY_MS);
  const attributes = [
    { shortName: 'O', value: subject.O },
    { shortName: 'CN', value: subject.CN },
  ];
  cert.setSubject(attributes);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : attributes);
  cert.setExtensions(extensionsOf(usage, issuer?.cert));
  cert.sign(nativeSigner(issuer ? issuer.keyPem : pair.privateKey), digests.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: pair.privateKey, cert, key };
}

// DigestInfo's DER prefix for SHA-256 (RFC 8017, section 9.2, note 1).
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * forge's `cert.sign` asks the key to sign the TBS certificate's digest; this key does it with
 * Node's RSA (PKCS#1 v1.5 over the DigestInfo, the signature forge would make), since forge's own
 * takes some 1.5 s a certificate inside jest's sandbox and Node's a millisecond.
 */
function nativeSigner(keyPem: string): forge.pki.rsa.PrivateKey {
  const sign = (md: { digest(): forge.util.ByteStringBuffer }): string => {
    const digest = Buffer.from(md.digest().getBytes(), 'binary');
    const signed = privateEncrypt(
      { key: keyPem, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([SHA256_DIGEST_INFO, digest]),
    );
    return signed.toString('binary');
  };
  return { sign } as unknown as forge.pki.rsa.PrivateKey;
}

/** Makes a fresh set of Pix mTLS certificates, written to a new temporary directory. */
export async function makePixCertificates(): Promise<PixCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'pix-certs-'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    const [ca, otherCa] = await Promise.all([
      make({ O: 'Fake PSP', CN: 'Fake PSP Test CA' }, 'ca', CA_DAYS),
      make({ O: 'Someone Else', CN: 'Unrelated Test CA' }, 'ca', CA_DAYS),
    ]);
    const [server, client, untrusted] = await Promise.all([
      make({ O: 'Fake PSP', CN: '127.0.0.1' }, 'server', CLIENT_DAYS, ca),
      make({ O: 'Loja Teste', CN: 'pix-client' }, 'client', CLIENT_DAYS, ca),
      make({ O: 'Someone Else', CN: 'pix-client' }, 'client', CLIENT_DAYS, otherCa),
    ]);
    return await collect(dir, remove, { ca, server, client, untrusted });
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The PEM bundle and a PKCS#12 (3DES, as many banks still hand out), written and returned. */
async function collect(
  dir: string,
  remove: () => Promise<void>,
  made: { ca: Made; server: Made; client: Made; untrusted: Made },
): Promise<PixCertificates> {
  const { ca, server, client, untrusted } = made;
  const files = {
    ca: join(dir, 'ca.pem'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
    clientPem: join(dir, 'client.pem'),
    pkcs12: join(dir, 'client.p12'),
  };
  const clientPem = `${client.certPem}${client.keyPem}`;
  const pkcs12Passphrase = randomBytes(12).toString('hex');
  const p12 = forge.pkcs12.toPkcs12Asn1(client.key, [client.cert], pkcs12Passphrase, {
    algorithm: '3des',
    friendlyName: 'pix-client',
  });
  const pkcs12 = Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
  await Promise.all([
    writeFile(files.ca, ca.certPem),
    writeFile(files.clientCert, client.certPem),
    writeFile(files.clientKey, client.keyPem),
    writeFile(files.clientPem, clientPem),
    writeFile(files.pkcs12, pkcs12),
  ]);
  return {
    dir,
    caPem: ca.certPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
    clientPem,
    clientNotAfter: new Date(new X509Certificate(client.certPem).validTo),
    untrustedClientPem: `${untrusted.certPem}${untrusted.keyPem}`,
    clientPkcs12Base64: pkcs12.toString('base64'),
    pkcs12Passphrase,
    files,
    remove,
  };
}
