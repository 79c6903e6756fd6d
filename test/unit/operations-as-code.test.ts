import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  createMetrics,
  observeQueues,
  observeReconciler,
  observeRedis,
} from '../../src/infra/metrics';

const ROOT = path.join(__dirname, '..', '..');

/** Every metric the connector exports, as /metrics names them. */
async function exportedNames(): Promise<Set<string>> {
  const metrics = createMetrics();
  observeQueues(metrics, []);
  observeReconciler(metrics, async () => ({ due: 0, oldestDueAt: undefined }));
  observeRedis(metrics, async () => true);
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
  it('every alert rule has a runbook line in README and reads exported metrics', async () => {
    const names = await exportedNames();
    const rules = (
      parse(readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
        groups: Array<{
          rules: Array<{ alert: string; expr: string; labels: { severity: string } }>;
        }>;
      }
    ).groups.flatMap((group) => group.rules);
    expect(rules.length).toBeGreaterThanOrEqual(8);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const rule of rules) {
      expect(['warning', 'critical']).toContain(rule.labels.severity);
      for (const name of metricsIn(rule.expr))
        expect({ rule: rule.alert, name, exported: names.has(name) }).toEqual({
          rule: rule.alert,
          name,
          exported: true,
        });
      expect(readme).toContain(`\`${rule.alert}\``);
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
