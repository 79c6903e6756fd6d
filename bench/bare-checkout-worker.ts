/*
 * The baseline of the checkout pipeline: a bare BullMQ worker making the same two platform calls
 * as the connector's checkout job (GET the service, POST its checkout URL), with the same
 * concurrency, and nothing else. Prints "bare worker ready".
 */
import axios from 'axios';
import { Worker } from 'bullmq';
import { redisOptions } from '../src/redis/redis';

const env = process.env as Record<string, string>;
const http = axios.create({
  baseURL: env.PLATFORM_BASE_URL,
  timeout: 10_000,
  headers: {
    authorization: `Basic ${Buffer.from(`${env.PLATFORM_EMAIL}:${env.PLATFORM_PASSWORD}`).toString('base64')}`,
    'x-dreamfactory-api-key': env.PLATFORM_API_KEY,
  },
});
const worker = new Worker(
  'bare-checkout',
  async (job) => {
    const serviceId = Number(job.data.serviceId);
    await http.get(`/services/${serviceId}`);
    await http.post('/payment/checkout-url', {
      service_id: serviceId,
      checkout_url: `https://pay.example/checkout/${job.id}`,
    });
  },
  {
    connection: redisOptions(String(env.REDIS_URL), 'worker'),
    prefix: 'bench-bare',
    concurrency: Number(env.WORKER_CONCURRENCY ?? 10),
  },
);
void worker.waitUntilReady().then(() => console.log('bare worker ready'));
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
