import { linkInvalid } from '../connect-flow';
import { defineConnectFlow } from '../define-connect-flow';
import { apiUrlUnlessOfficial } from '../provider-hosts';
import { mercadoPagoVendor } from './mercadopago-vendor';
import { MERCADOPAGO_API } from './mercadopago-api';
import { authorizationUrl, exchangeCode, pkcePair } from './mercadopago-oauth';

/** How long the owner has between the link's button and Mercado Pago's callback. */
const STATE_TTL_MS = 30 * 60_000;

/** The callback Mercado Pago sends the owner back to; the vendor's application lists it. */
function redirectUri(publicUrl: string): string {
  return `${publicUrl}/connect/mercadopago/callback`;
}

/**
 * A shop's Mercado Pago account connected by OAuth with PKCE (CONTRACT "Connecting a shop's
 * provider account"): the link's button sends the owner to authorize the vendor's application
 * (the verifier, sealed, waits under a state bound to the browser); the callback exchanges the
 * code and stores the owner's tokens, which the connector renews.
 */
export const mercadoPagoLink = defineConnectFlow('mercadopago', {
  purpose: 'mercadopago-oauth',
  vendor: mercadoPagoVendor,
  page: {
    title: 'Conectar a conta do Mercado Pago',
    steps:
      'Você entra no Mercado Pago com o seu login e autoriza o acesso. Nenhuma senha ou chave é enviada a ninguém, e você pode revogar o acesso no Mercado Pago quando quiser.',
    button: 'Conectar com Mercado Pago',
  },
  origins: (application) => [new URL(application.authUrl).origin],

  async start(ctx, application, link, browser) {
    const { verifier, challenge } = pkcePair();
    const state = await ctx.issueState(link, browser, { secret: verifier }, STATE_TTL_MS);
    return authorizationUrl(application, {
      redirectUri: redirectUri(ctx.publicUrl),
      state,
      challenge,
    });
  },

  callbacks: {
    /**
     * The owner back from Mercado Pago: the code exchanged with the verifier its state keeps, the
     * tokens stored, the link used. A link whose exchange failed works again.
     */
    async callback(ctx, application, query, browser) {
      const state = await ctx.checkState(query.state, browser);
      if (!(await state.take())) throw linkInvalid();
      if (query.error !== undefined || !query.code) return { outcome: 'cancelled' };
      const { code } = query;
      const verifier = state.secret;
      if (verifier === undefined) throw linkInvalid();
      const link = await ctx.usable(state.linkKey);
      const shopName = await ctx.use(link, async () => {
        await ctx.precheck(link);
        const grant = await exchangeCode(
          application,
          { code, verifier, redirectUri: redirectUri(ctx.publicUrl) },
          ctx.clock,
        );
        return ctx.store(link, {
          name: 'mercadopago',
          connection: 'oauth',
          account: grant.account,
          connectedAt: ctx.clock().toISOString(),
          expiresAt: grant.expiresAt,
          accessToken: grant.accessToken,
          refreshToken: grant.refreshToken,
          publicKey: grant.publicKey,
          ...apiUrlUnlessOfficial(MERCADOPAGO_API, application.apiUrl),
        });
      });
      return { outcome: 'connected', shop: link.shop, shopName };
    },
  },
});
