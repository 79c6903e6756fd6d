// Validates deploy/kubernetes (npm run check:manifests; .ci/run runs it):
//   1. the kustomization builds: `kubectl kustomize` where kubectl is installed, else its
//      `resources` read in order (the only kustomize fields it may use besides `images`);
//   2. every object against the Kubernetes API's JSON schemas (kubernetes-models: types,
//      required fields, enums and formats of the API version each object names), and no field
//      the API does not know (TypeScript's excess property check against the same types);
//   3. what operators rely on: api and worker Deployments with probes on /healthz and /readyz,
//      resource requests and a memory limit, a non-root read-only container without
//      capabilities, the secrets from the Secret and nothing secret in the ConfigMap, the
//      worker's termination grace period above SHUTDOWN_TIMEOUT_MS, a PodDisruptionBudget
//      and a Service selecting the right pods;
//   4. the connector's own configuration loader accepts each role's environment.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.join(root, 'deploy', 'kubernetes');
const problems = [];
const problem = (message) => problems.push(message);

// --- 1. the build ---
function build() {
  try {
    const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe' });
    console.log('manifests: built with kubectl kustomize');
    return parseAllDocuments(out).map((doc) => doc.toJS());
  } catch (error) {
    if (error.code !== 'ENOENT')
      throw new Error(`kubectl kustomize failed: ${error.stderr ?? error.message}`);
  }
  const kustomization = parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'));
  const known = new Set(['apiVersion', 'kind', 'resources', 'images']);
  for (const key of Object.keys(kustomization)) {
    if (!known.has(key)) throw new Error(`kustomization.yaml uses ${key}: build it with kubectl`);
  }
  const objects = kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((doc) => doc.toJS()),
  );
  for (const object of objects) {
    for (const container of object.spec?.template?.spec?.containers ?? []) {
      const image = kustomization.images.find((i) => i.name === container.image);
      if (image) container.image = `${image.newName}:${image.newTag}`;
    }
  }
  console.log(
    'manifests: kubectl is not installed; resources read as kustomization.yaml lists them',
  );
  return objects;
}
const objects = build();

// --- 2. the schemas ---
// The API versions this check knows; each is also the package's module of that version.
const API_VERSIONS = new Set(['v1', 'apps/v1', 'policy/v1']);
/** The objects of a known version and kind: step 2b type-checks these. */
const modelled = [];
for (const object of objects) {
  const where = `${object.kind} ${object.metadata?.name}`;
  if (!API_VERSIONS.has(object.apiVersion)) {
    problem(`${where}: apiVersion ${object.apiVersion} is not one this check knows`);
    continue;
  }
  const Model = (await import(`kubernetes-models/${object.apiVersion}`))[object.kind];
  if (!Model) {
    problem(`${where}: no ${object.kind} in ${object.apiVersion}`);
    continue;
  }
  modelled.push(object);
  try {
    new Model(object).validate();
  } catch (error) {
    problem(`${where}: ${error.message}`);
  }
}

// --- 2b. no unknown field ---
// The schemas above let any extra field through, where the API server drops it silently (a
// misspelt `readinessProbe` is no probe at all). TypeScript's excess property check against
// the same package's types refuses them: each object becomes a typed literal, and the compiler
// reports the first unknown field of every nested object.
const ts = (await import('typescript')).default;
const cache = mkdtempSync(path.join(root, 'node_modules', '.manifests-check-'));
try {
  const files = new Map();
  modelled.forEach((object, i) => {
    const file = path.join(cache, `${i}.mts`);
    files.set(file, `${object.kind} ${object.metadata?.name}`);
    writeFileSync(
      file,
      `import type { I${object.kind} } from 'kubernetes-models/${object.apiVersion}/${object.kind}';\n` +
        `export const object: I${object.kind} = ${JSON.stringify(object, null, 2)};\n`,
    );
  });
  const program = ts.createProgram([...files.keys()], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    skipLibCheck: true,
    types: [],
  });
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const where = files.get(diagnostic.file?.fileName) ?? 'the type check';
    problem(`${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
  }
} finally {
  rmSync(cache, { recursive: true, force: true });
}

// --- 3. what operators rely on ---
const find = (kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const configMap =
  find('ConfigMap', 'checkout-connector') ?? problem('no ConfigMap checkout-connector');
const secret = find('Secret', 'checkout-connector') ?? problem('no Secret checkout-connector');

// The connector's own lists (dist/, built by npm ci): the variables it reads (those of
// config/.env.example, a unit test keeps them equal) and those whose values are secrets.
const require = createRequire(import.meta.url);
const { loadConfig, CONFIG_VARIABLES, SECRET_VARIABLES } = require(
  path.join(root, 'dist', 'config', 'index.js'),
);
const documented = new Set(CONFIG_VARIABLES);
const secretNames = new Set(SECRET_VARIABLES);
for (const key of Object.keys(configMap?.data ?? {})) {
  if (!documented.has(key)) problem(`ConfigMap: ${key} is not a variable the connector reads`);
  if (secretNames.has(key)) problem(`ConfigMap: ${key} is a secret; it belongs in the Secret`);
}
for (const key of Object.keys(secret?.stringData ?? secret?.data ?? {})) {
  if (!secretNames.has(key)) problem(`Secret: ${key} is not a secret variable of the connector`);
}

const labelsMatch = (selector, labels) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const shutdownMs = Number(configMap?.data?.SHUTDOWN_TIMEOUT_MS ?? 15000);
const envs = {};
for (const role of ['api', 'worker']) {
  const name = `checkout-connector-${role}`;
  const deployment = find('Deployment', name);
  if (!deployment) {
    problem(`no Deployment ${name}`);
    continue;
  }
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const at = `Deployment ${name}`;
  if (!labelsMatch(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels))
    problem(`${at}: its selector does not select its own pods`);
  const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
  if (env.ROLE !== role) problem(`${at}: ROLE is ${env.ROLE}, not ${role}`);
  const portOf = (ref) =>
    typeof ref === 'number' ? ref : container.ports?.find((p) => p.name === ref)?.containerPort;
  const appPort = Number(env.PORT ?? 3000);
  for (const [probe, route] of [
    ['livenessProbe', '/healthz'],
    ['readinessProbe', '/readyz'],
  ]) {
    const get = container[probe]?.httpGet;
    if (get?.path !== route || portOf(get.port) !== appPort)
      problem(`${at}: ${probe} must GET ${route} on port ${appPort}`);
  }
  const { requests, limits } = container.resources ?? {};
  if (!requests?.cpu || !requests?.memory) problem(`${at}: no cpu and memory requests`);
  if (!limits?.memory) problem(`${at}: no memory limit`);
  const pc = pod.securityContext ?? {};
  const cc = container.securityContext ?? {};
  if (pc.runAsNonRoot !== true || pc.runAsUser !== 1000) problem(`${at}: not runAsNonRoot as 1000`);
  if (cc.readOnlyRootFilesystem !== true) problem(`${at}: the root filesystem is not read-only`);
  if (cc.allowPrivilegeEscalation !== false) problem(`${at}: privilege escalation allowed`);
  if (!cc.capabilities?.drop?.includes('ALL')) problem(`${at}: capabilities not dropped`);
  if (!container.volumeMounts?.some((m) => m.mountPath === '/tmp'))
    problem(`${at}: no writable /tmp (npx and the npm cache need one)`);
  const refs = container.envFrom ?? [];
  if (!refs.some((r) => r.secretRef?.name === secret?.metadata.name))
    problem(`${at}: the secrets do not come from the Secret`);
  if (!refs.some((r) => r.configMapRef?.name === configMap?.metadata.name))
    problem(`${at}: the configuration does not come from the ConfigMap`);
  const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
  const preStopMs = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0) * 1000;
  if (graceMs <= shutdownMs + preStopMs)
    problem(`${at}: terminationGracePeriodSeconds must exceed SHUTDOWN_TIMEOUT_MS (+ preStop)`);
  const budget = objects.find(
    (o) =>
      o.kind === 'PodDisruptionBudget' &&
      labelsMatch(o.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
  );
  if (!budget) problem(`${at}: no PodDisruptionBudget selects its pods`);
  envs[role] = {
    ...configMap?.data,
    ...(secret?.stringData ?? {}),
    ...env,
  };
}
const service = objects.find((o) => o.kind === 'Service');
const api = find('Deployment', 'checkout-connector-api');
if (!service || !api || !labelsMatch(service.spec.selector, api.spec.template.metadata.labels))
  problem('no Service selects the api pods');
else if (
  !service.spec.ports.every((p) =>
    api.spec.template.spec.containers[0].ports.some((c) => c.name === p.targetPort),
  )
)
  problem('Service: a targetPort names no port of the api container');

// --- 4. the connector accepts each role's configuration ---
const emptyDir = mkdtempSync(path.join(tmpdir(), 'manifests-'));
for (const [role, env] of Object.entries(envs)) {
  try {
    const config = loadConfig(env, emptyDir);
    if (config.role !== role) problem(`${role}: the loaded configuration has role ${config.role}`);
  } catch (error) {
    problem(`${role}: the connector refuses the configuration: ${error.message}`);
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`manifests: FAIL: ${p}`);
  process.exit(1);
}
console.log(`manifests: ok (${objects.length} objects: ${objects.map((o) => o.kind).join(', ')})`);
