import { FakePix } from './fake-pix';
import { makePixCertificates, type PixCertificates } from './pix-certificates';
import type { ProviderFake } from './provider-suite';

/**
 * The fake PSP with the certificates it is made with (the CA, the shop's, another CA's), as a
 * provider suite starts and stops it; `extraEnv` joins the variables that aim the connector at it.
 */
export class PixWorld implements ProviderFake {
  private made: { certs: PixCertificates; pix: FakePix } | undefined;

  constructor(private readonly extraEnv: Record<string, string> = {}) {}

  get pix(): FakePix {
    if (!this.made) throw new Error('the fake PSP has not started');
    return this.made.pix;
  }

  get certs(): PixCertificates {
    if (!this.made) throw new Error('the fake PSP has not started');
    return this.made.certs;
  }

  async start(): Promise<string> {
    const certs = await makePixCertificates();
    this.made = { certs, pix: new FakePix({ certs }) };
    return this.made.pix.start();
  }

  async stop(): Promise<void> {
    await this.made?.pix.stop();
    await this.made?.certs.remove();
  }

  env(): Record<string, string> {
    return { ...this.pix.env(), ...this.extraEnv };
  }
}
