import { execFile } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The certificates of a Pix PSP's mutual TLS, made fresh for a test with the `openssl` CLI: the
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

const run = promisify(execFile);

// Short-lived like the client certs PSPs hand out, so a test can reason about renewal.
const CLIENT_DAYS = 90;
const CA_DAYS = 3650;

// Our own config, so the extensions do not depend on the distribution's openssl.cnf.
const OPENSSL_CNF = `[req]
distinguished_name = dn
prompt = no
[dn]
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
`;

/** Runs openssl with arguments (no shell), failing with its stderr. */
async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(error)}`);
  }
}

/** A self-signed CA: `<name>.key` and `<name>.pem` in dir. */
async function makeCa(dir: string, name: string, subject: string): Promise<void> {
  await openssl([
    ...['req', '-x509', '-new', '-newkey', 'rsa:2048', '-nodes'],
    ...['-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.pem`)],
    ...['-days', String(CA_DAYS), '-subj', subject, '-sha256'],
    ...['-config', join(dir, 'openssl.cnf'), '-extensions', 'ca_ext'],
  ]);
}

/** A key and a certificate signed by the CA `ca`: `<name>.key` and `<name>.crt` in dir. */
async function makeLeaf(
  dir: string,
  leaf: { name: string; subject: string; ca: string; extensions: string; days: number },
): Promise<void> {
  const cnf = join(dir, 'openssl.cnf');
  const csr = join(dir, `${leaf.name}.csr`);
  await openssl([
    ...['req', '-new', '-newkey', 'rsa:2048', '-nodes'],
    ...['-keyout', join(dir, `${leaf.name}.key`), '-out', csr, '-subj', leaf.subject],
    ...['-config', cnf],
  ]);
  await openssl([
    ...['x509', '-req', '-in', csr, '-out', join(dir, `${leaf.name}.crt`), '-sha256'],
    ...['-CA', join(dir, `${leaf.ca}.pem`), '-CAkey', join(dir, `${leaf.ca}.key`)],
    // A random serial, so no .srl file is shared by concurrent signatures.
    ...['-set_serial', `0x${randomBytes(16).toString('hex')}`, '-days', String(leaf.days)],
    ...['-extfile', cnf, '-extensions', leaf.extensions],
  ]);
}

/** The PSP's CA and what it signs: the server's cert and the shop's client cert. */
async function makeTrustedSet(dir: string): Promise<void> {
  await makeCa(dir, 'ca', '/O=Fake PSP/CN=Fake PSP Test CA');
  await Promise.all([
    makeLeaf(dir, {
      name: 'server',
      subject: '/O=Fake PSP/CN=127.0.0.1',
      ca: 'ca',
      extensions: 'server_ext',
      days: CLIENT_DAYS,
    }),
    makeLeaf(dir, {
      name: 'client',
      subject: '/O=Loja Teste/CN=pix-client',
      ca: 'ca',
      extensions: 'client_ext',
      days: CLIENT_DAYS,
    }),
  ]);
}

/** A client cert of a CA the PSP never heard of. */
async function makeUntrustedSet(dir: string): Promise<void> {
  await makeCa(dir, 'other-ca', '/O=Someone Else/CN=Unrelated Test CA');
  await makeLeaf(dir, {
    name: 'untrusted-client',
    subject: '/O=Someone Else/CN=pix-client',
    ca: 'other-ca',
    extensions: 'client_ext',
    days: CLIENT_DAYS,
  });
}

/** Makes a fresh set of Pix mTLS certificates in a new temporary directory. */
export async function makePixCertificates(): Promise<PixCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'pix-certs-'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    await writeFile(join(dir, 'openssl.cnf'), OPENSSL_CNF);
    await Promise.all([makeTrustedSet(dir), makeUntrustedSet(dir)]);
    return await collect(dir, remove);
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Writes the PEM bundle and the PKCS#12, and reads everything back. */
async function collect(dir: string, remove: () => Promise<void>): Promise<PixCertificates> {
  const read = (name: string): Promise<string> => readFile(join(dir, name), 'utf8');
  const files = {
    ca: join(dir, 'ca.pem'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
    clientPem: join(dir, 'client.pem'),
    pkcs12: join(dir, 'client.p12'),
  };
  const [caPem, serverCertPem, serverKeyPem, clientCertPem, clientKeyPem] = await Promise.all(
    ['ca.pem', 'server.crt', 'server.key', 'client.crt', 'client.key'].map(read),
  );
  const untrusted = await Promise.all(['untrusted-client.crt', 'untrusted-client.key'].map(read));
  const clientPem = `${clientCertPem}${clientKeyPem}`;
  await writeFile(files.clientPem, clientPem);
  const pkcs12Passphrase = randomBytes(12).toString('hex');
  await openssl([
    ...['pkcs12', '-export', '-in', files.clientCert, '-inkey', files.clientKey],
    ...['-name', 'pix-client', '-out', files.pkcs12, '-passout', `pass:${pkcs12Passphrase}`],
  ]);
  return {
    dir,
    caPem: caPem!,
    serverCertPem: serverCertPem!,
    serverKeyPem: serverKeyPem!,
    clientCertPem: clientCertPem!,
    clientKeyPem: clientKeyPem!,
    clientPem,
    clientNotAfter: new Date(new X509Certificate(clientCertPem!).validTo),
    untrustedClientPem: untrusted.join(''),
    clientPkcs12Base64: (await readFile(files.pkcs12)).toString('base64'),
    pkcs12Passphrase,
    files,
    remove,
  };
}
