import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../../src/config';
import {
  createMetrics,
  observeBalances,
  observeBreakers,
  observeConnections,
  observeQueues,
  observeReconciler,
  observeRedis,
} from '../../../src/infra/metrics';

const ROOT = path.join(__dirname, '..', '..', '..');

/** Every metric the connector exports, as /metrics names them. */
async function exportedNames(): Promise<Set<string>> {
  const metrics = createMetrics();
  observeQueues(metrics, []);
  observeReconciler(metrics, async () => ({
    due: 0,
    oldestDueAt: undefined,
    unreadable: 0,
    watched: 0,
    watchDue: 0,
  }));
  observeRedis(metrics, async () => true);
  observeBreakers(metrics, async () => []);
  observeBalances(metrics, async () => []);
  observeConnections(metrics, () => []);
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (metric.type === ('histogram' as never))
      for (const suffix of ['_bucket', '_count', '_sum']) names.add(metric.name + suffix);
  }
  return names;
}

/** The metric names an expression reads (Prometheus' own `up` aside). */
function metricsIn(expr: string): string[] {
  const withoutStrings = expr.replace(/"[^"]*"/g, '""');
  const candidates = withoutStrings.match(/\b(connector|http|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
  return [...new Set(candidates)];
}

describe('operations as code: alerts and dashboard read metrics the connector exports', () => {
  it('every alert rule has a runbook line in docs/operating.md and reads exported metrics', async () => {
    const names = await exportedNames();
    const rules = (
      parse(readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
        groups: Array<{
          rules: Array<{ alert: string; expr: string; labels: { severity: string } }>;
        }>;
      }
    ).groups.flatMap((group) => group.rules);
    expect(rules.length).toBeGreaterThanOrEqual(8);
    const runbook = readFileSync(path.join(ROOT, 'docs/operating.md'), 'utf8');
    for (const rule of rules) {
      expect(['warning', 'critical']).toContain(rule.labels.severity);
      for (const name of metricsIn(rule.expr))
        expect({ rule: rule.alert, name, exported: names.has(name) }).toEqual({
          rule: rule.alert,
          name,
          exported: true,
        });
      expect(runbook).toContain(`\`${rule.alert}\``);
    }
  });

  it('every dashboard panel reads exported metrics', async () => {
    const names = await exportedNames();
    const dashboard = JSON.parse(
      readFileSync(path.join(ROOT, 'deploy/grafana/connector.json'), 'utf8'),
    ) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const target of panel.targets)
        for (const name of metricsIn(target.expr))
          expect({ panel: panel.title, name, exported: names.has(name) }).toEqual({
            panel: panel.title,
            name,
            exported: true,
          });
    }
  });
});

describe('operations as code: docker-compose.yml', () => {
  interface ComposeService {
    image?: string;
    build?: string;
    init?: boolean;
    read_only?: boolean;
    ports?: string[];
    profiles?: string[];
    command?: string[];
    environment?: Record<string, string | number>;
    depends_on?: Record<string, { condition: string }>;
    logging?: { driver: string; options: Record<string, string> };
  }
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as { services: Record<string, ComposeService> };
  const { redis, api, worker, simulator } = compose.services;
  // The variables the connector reads: config/.env.example's (config.test.ts keeps them equal).
  const documented = CONFIG_VARIABLES;

  it('runs the api and the worker from one image, each with its role and every variable', () => {
    expect(documented.length).toBeGreaterThan(40);
    for (const [service, role] of [
      [api, 'api'],
      [worker, 'worker'],
    ] as const) {
      expect(service?.image).toBe(simulator?.image);
      expect(service?.environment?.ROLE).toBe(role);
      // Compose passes only what is listed: a variable missing here could never be set.
      expect(documented.filter((name) => !(name in (service?.environment ?? {})))).toEqual([]);
      expect(service?.init).toBe(true);
      expect(service?.read_only).toBe(true);
      expect(service?.depends_on?.redis?.condition).toBe('service_healthy');
      expect(service?.logging?.options['max-size']).toMatch(/^\d+m$/);
    }
    // Scalable: a worker publishes no port (two containers could not share one).
    expect(worker?.ports).toBeUndefined();
  });

  it('binds published ports to the loopback interface and gates the demo on a healthy api', () => {
    const published = [...(api?.ports ?? []), ...(simulator?.ports ?? [])];
    expect(published.length).toBe(2);
    for (const port of published)
      expect(port).toMatch(/^\$\{CONNECTOR_BIND:-127\.0\.0\.1\}:|^127\.0\.0\.1:/);
    expect(simulator?.profiles).toEqual(['demo']);
    expect(simulator?.depends_on?.api?.condition).toBe('service_healthy');
    expect(api?.environment?.PLATFORM_BASE_URL).toBe('${PLATFORM_BASE_URL:-http://simulator:4000}');
  });

  it('runs Redis append-only, with a memory ceiling and no eviction', () => {
    const args = (redis?.command ?? []).join(' ');
    expect(args).toMatch(/--appendonly yes/);
    expect(args).toMatch(/--maxmemory \S+/);
    expect(args).toMatch(/--maxmemory-policy noeviction/);
  });
});

describe('operations as code: Node options', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const image = /^ENV NODE_OPTIONS="(.+)"$/m.exec(dockerfile)?.[1] ?? '';
  const option = (options: string, name: string) =>
    new RegExp(`--${name}=(\\d+)`).exec(options)?.[1];

  it('gives the api a larger young generation than the image, its heap limit unchanged', () => {
    const manifest = parse(
      readFileSync(path.join(ROOT, 'deploy', 'kubernetes', 'api.yaml'), 'utf8'),
    ) as {
      spec: {
        template: {
          spec: {
            containers: {
              env: { name: string; value: string }[];
              resources: { limits: { memory: string } };
            }[];
          };
        };
      };
    };
    const [container] = manifest.spec.template.spec.containers;
    const kubernetes = container?.env.find((entry) => entry.name === 'NODE_OPTIONS')?.value ?? '';
    const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as { services: { api: { environment: Record<string, string> } } };
    // One setting for the api wherever it is deployed.
    expect(compose.services.api.environment.NODE_OPTIONS).toBe(kubernetes);
    expect(option(kubernetes, 'max-old-space-size')).toBe(option(image, 'max-old-space-size'));
    const young = Number(option(kubernetes, 'max-semi-space-size'));
    expect(young).toBeGreaterThan(Number(option(image, 'max-semi-space-size')));
    // The container's limit holds the old space, the young generation's two halves and 64 MB more.
    const limitMb = Number(/^(\d+)Mi$/.exec(container?.resources.limits.memory ?? '')?.[1]);
    expect(limitMb).toBeGreaterThanOrEqual(
      Number(option(kubernetes, 'max-old-space-size')) + 2 * young + 64,
    );
  });
});
