// Walks one checkout through a running compose deployment (.ci/compose-check):
//   node .ci/compose-walk.mjs <connector url> <simulator url>
// The simulator asks the connector for a checkout of service 1001, the URL arrives, the sandbox
// page is paid, and the finish reaches the simulator. Exits 1 with the reason otherwise.
const [connector, simulator] = process.argv.slice(2);
const SERVICE = 1001;

async function eventually(what, probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function callsTo(endpoint) {
  const answer = await fetch(`${simulator}/__simulator/calls`);
  const { payments } = await answer.json();
  return payments.filter((call) => call.endpoint === endpoint && call.serviceId === SERVICE);
}

await eventually(
  'the api to be ready',
  async () => ((await fetch(`${connector}/readyz`)).ok ? true : undefined),
  120_000,
);
const asked = await fetch(`${simulator}/__simulator/checkout-requests`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ service_id: SERVICE }),
});
const answer = await asked.json();
if (answer.connector?.status !== 202) {
  throw new Error(`the connector answered the checkout request ${JSON.stringify(answer)}`);
}
const url = await eventually(
  'the checkout URL at the simulator',
  async () => (await callsTo('checkout-url'))[0]?.body.checkout_url,
  60_000,
);
console.log(`compose-walk: checkout URL ${url}`);
const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
if (paid.status !== 303) throw new Error(`paying answered ${paid.status}`);
const finish = await eventually(
  'the finish at the simulator',
  async () => (await callsTo('finish-checkout'))[0],
  60_000,
);
console.log(`compose-walk: finish delivered: ${JSON.stringify(finish.body)}`);
