import { checkoutRouteWorld, post } from '../../support/checkout-flow-world';
import { ROUTE_TOKEN, type Harness } from '../../support/harness';

/*
 * The checkout route's token (docs/checkout-flow.md): a caller with no token, or a wrong one as a
 * bearer, an API key or a query parameter, is answered 401; and the token a caller sends never
 * reaches the log, even with a request the route refuses.
 */
describe('the checkout route refuses bad callers and keeps its token out of the log', () => {
  const world = checkoutRouteWorld();
  const { route, json } = world;
  let h: Harness;
  beforeAll(() => {
    h = world.h;
  });

  it.each([
    ['no token', {}, ''],
    ['a wrong bearer token', { authorization: 'Bearer wrong-token-value' }, ''],
    ['a wrong api key', { 'x-api-key': 'nope' }, ''],
    ['a wrong query token', {}, '?token=nope'],
  ])('answers 401 to %s', async (_name, headers, query) => {
    const res = await post(`${route()}${query}`, '{"service_id": 1001}', { ...json, ...headers });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers malformed JSON with 400 and a log line, and the token never reaches the log', async () => {
    const res = await post(route(), '{"service_id": ', {
      ...json,
      authorization: `Bearer ${ROUTE_TOKEN}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
    expect(h.log.text()).not.toContain(ROUTE_TOKEN);
  });
});
