import { makePixCertificates } from './pix-certificates';

/*
 * Makes a set of Pix mTLS certificates and prints it as JSON (without `remove`): the child
 * process of pix-certificates-apart.ts, which imports nothing else, so it starts at once.
 */
void makePixCertificates().then((certs) => {
  const { remove: _kept, ...sent } = certs;
  process.stdout.write(JSON.stringify(sent));
});
