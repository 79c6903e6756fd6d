import { Command } from 'commander';
import { once } from 'node:events';
import { createLogger } from '../infra/logger';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../simulator/platform-simulator';
import type { SimulatorCredentials } from '../simulator/simulator-state';
import { write, type CliIo } from './cli-io';
import { parsePositiveInt } from './services-commands';

interface SimulatorCommandOptions {
  port: number;
  host: string;
  services: number;
  seed: number;
  connectorUrl?: string;
  connectorToken?: string;
}

/** `simulator`: the platform simulator, until Ctrl-C. */
export function simulatorCommand(io: CliIo, signals: NodeJS.EventEmitter = process): Command {
  return new Command('simulator')
    .description('run the platform simulator (offline double of the platform API)')
    .option('--port <port>', 'port to listen on', (v) => Number(v), 4000)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--services <n>', 'how many seeded services', parsePositiveInt, 25)
    .option('--seed <n>', 'seed of the generated services', parsePositiveInt, 42)
    .option(
      '--connector-url <url>',
      "the connector's checkout route, for POST /__simulator/checkout-requests",
    )
    .option('--connector-token <token>', 'token the simulator presents to that route')
    .action(async (options: SimulatorCommandOptions) => {
      const credentials = {
        email: io.env.PLATFORM_EMAIL ?? DEMO_CREDENTIALS.email,
        password: io.env.PLATFORM_PASSWORD ?? DEMO_CREDENTIALS.password,
        apiKey: io.env.PLATFORM_API_KEY ?? DEMO_CREDENTIALS.apiKey,
      };
      const simulator = simulatorFor(io, options, credentials);
      const url = await simulator.start(options.port, options.host);
      const first = simulator.state.firstServiceId;
      const services = `${first}..${first + options.services - 1}`;
      await write(io.stdout, startLines(url, services, credentials).join('\n'));
      await Promise.race([once(signals, 'SIGINT'), once(signals, 'SIGTERM')]);
      await simulator.stop();
    });
}

/** The simulator the options ask for, its log on stderr with the credentials' secrets scrubbed. */
function simulatorFor(
  io: CliIo,
  options: SimulatorCommandOptions,
  credentials: SimulatorCredentials,
): PlatformSimulator {
  const logger = createLogger({
    level: io.env.LOG_LEVEL ?? 'info',
    format: 'pretty',
    secrets: [credentials.password, credentials.apiKey],
    stream: io.stderr,
    component: 'simulator',
  });
  const { connectorUrl: checkoutUrl, connectorToken: token } = options;
  return new PlatformSimulator({
    credentials,
    serviceCount: options.services,
    seed: options.seed,
    logger,
    connector: checkoutUrl && token ? { checkoutUrl, token } : undefined,
  });
}

/** What the command says once it listens: where, which services, credentials and controls. */
function startLines(url: string, services: string, credentials: SimulatorCredentials): string[] {
  const { email, password, apiKey } = credentials;
  return [
    `platform simulator listening on ${url}`,
    `services ${services}`,
    password === DEMO_CREDENTIALS.password
      ? `credentials: PLATFORM_EMAIL=${email} PLATFORM_PASSWORD=${password} PLATFORM_API_KEY=${apiKey}`
      : 'credentials: taken from PLATFORM_EMAIL, PLATFORM_PASSWORD, PLATFORM_API_KEY',
    `control: GET ${url}/__simulator/calls, POST ${url}/__simulator/faults, POST ${url}/__simulator/checkout-requests`,
    '',
  ];
}
