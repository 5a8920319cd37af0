/**
 * The Kubernetes files under docker/kubernetes: each overlay renders with `kubectl kustomize`, every
 * rendered object is valid against the Kubernetes or KEDA schema with no unknown field, and the
 * rules of checks.ts hold. The second half breaks copies of the rendered objects on purpose and
 * shows each guard refusing them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { composeProblems, deploymentProblems, jobProblems, metricsTokenProblems, queuePrefixOf, scalingProblems, serviceProblems, trellisConfig } from './checks';
import { KUBERNETES_DIR, REPO_ROOT, kustomize, type K8sObject } from './render';
import { schemaProblems } from './schema';
// What the engine and the web app refuse at start, to show the placeholders cannot run as they are.
import { parseSecretsKey } from '../../engine/src/policy/secret-key';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';

/** The overlays, and whether KEDA scales their workers (the production overlay includes components/keda). */
const OVERLAYS = { dev: { scaled: false }, production: { scaled: true } } as const;
type Overlay = keyof typeof OVERLAYS;

const rendered = {} as Record<Overlay, K8sObject[]>;
beforeAll(() => {
  for (const overlay of Object.keys(OVERLAYS) as Overlay[]) rendered[overlay] = kustomize(`overlays/${overlay}`);
});

const label = (o: K8sObject) => `${String(o.kind)} ${String((o.metadata as { name?: string } | undefined)?.name)}`;
const clone = (objects: readonly K8sObject[]): K8sObject[] => structuredClone([...objects]);

/** Kinds the broken-copy tests change, with the typed shape they have once schema-valid. */
interface Shapes {
  Deployment: IDeployment;
  PodDisruptionBudget: IPodDisruptionBudget;
  ScaledObject: IScaledObject;
  Secret: ISecret;
}

/** The object of `kind` named `name` in `objects`, typed (throws when there is none). */
function find<K extends keyof Shapes>(objects: K8sObject[], kind: K, name: string): Shapes[K] {
  const found = objects.find((o) => o.kind === kind && (o.metadata as { name?: string }).name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the build`);
  return found as unknown as Shapes[K];
}

/** The first container of a Deployment's pods. */
function container(d: IDeployment): IContainer {
  const c = d.spec?.template.spec?.containers[0];
  if (!c) throw new Error(`Deployment ${d.metadata?.name ?? '?'} has no container`);
  return c;
}

/** The first trigger's metadata of a ScaledObject. */
function firstTrigger(so: IScaledObject): Record<string, string> {
  const t = so.spec?.triggers[0];
  if (!t) throw new Error(`ScaledObject ${so.metadata?.name ?? '?'} has no trigger`);
  return t.metadata;
}

describe.each(Object.keys(OVERLAYS) as Overlay[])('overlay %s', (overlay) => {
  test('every object is valid against its schema, with no unknown field', () => {
    const problems = rendered[overlay].flatMap((o) => schemaProblems(o).map((p) => `${label(o)}: ${p}`));
    expect(problems).toEqual([]);
  });

  test('every Deployment has probes, requests, limits, a drain-length stop timeout and its own PodDisruptionBudget', () => {
    expect(deploymentProblems(rendered[overlay])).toEqual([]);
  });

  test('every Job removes itself after it finishes, so a new image can be applied', () => {
    expect(jobProblems(rendered[overlay])).toEqual([]);
  });

  test('every Service reaches pods of the build', () => {
    expect(serviceProblems(rendered[overlay])).toEqual([]);
  });

  test(OVERLAYS[overlay].scaled ? 'every worker pool has a ScaledObject on its wait lists, normal and urgent' : 'no KEDA objects', () => {
    expect(scalingProblems(rendered[overlay], OVERLAYS[overlay].scaled)).toEqual([]);
  });
});

test('the production workers are one Deployment per pool, default and agents', () => {
  const pools = (rendered.production.filter((o) => o.kind === 'Deployment') as unknown as IDeployment[])
    .filter((d) => d.spec?.template.metadata?.labels?.['app.kubernetes.io/component'] === 'worker')
    .map((d) => container(d).env?.find((e) => e.name === 'TRELLIS_POOLS')?.value);
  expect(pools.sort()).toEqual(['agents', 'default']);
});

test('the queue prefix the ScaledObjects read is the one the engine derives from the ConfigMap', () => {
  const config = trellisConfig(rendered.production);
  expect(config).toBeDefined();
  expect(queuePrefixOf(config ?? {})).toBe('{trellis}');
  const agents = find(rendered.production, 'ScaledObject', 'trellis-worker-agents');
  expect(firstTrigger(agents).listName).toBe('{trellis}:pool-agents:wait');
  expect(agents.spec?.triggers.find((t) => t.name === 'urgent-wait')?.metadata.listName).toBe('{trellis}:pool-agents.urgent:wait');
});

test('the production metrics ask for a token every pod reads from the Secret', () => {
  expect(metricsTokenProblems(rendered.production)).toEqual([]);
});

test('the production placeholders are refused at start, so none can run by mistake', () => {
  const values = find(rendered.production, 'Secret', 'trellis-secrets').stringData ?? {};
  // apps/web/src/env.ts: NEXTAUTH_SECRET must be at least 16 characters.
  expect(values.NEXTAUTH_SECRET?.length).toBeLessThan(16);
  expect(() => parseSecretsKey(values.TRELLIS_SECRETS_KEY ?? '', 'TRELLIS_SECRETS_KEY')).toThrow(/TRELLIS_SECRETS_KEY/);
  // scripts/prepare.ts refuses an admin password still marked CHANGE-ME.
  expect(values.TRELLIS_ADMIN_PASSWORD).toContain('CHANGE-ME');
  for (const key of ['DATABASE_URL', 'REDIS_URL', 'REDIS_ADDRESS', 'REDIS_PASSWORD']) expect(values[key], key).toContain('CHANGE-ME');
});

test('docker/compose.yml has healthchecks and stop grace periods that cover the drain', () => {
  const drainMs = Number(trellisConfig(rendered.production)?.TRELLIS_DRAIN_MS);
  expect(drainMs).toBeGreaterThan(0);
  expect(composeProblems(readFileSync(join(REPO_ROOT, 'docker/compose.yml'), 'utf8'), drainMs)).toEqual([]);
});

test('the Grafana dashboard is JSON with a query on every Trellis metric', () => {
  const dashboard = JSON.parse(readFileSync(join(KUBERNETES_DIR, 'grafana/trellis-dashboard.json'), 'utf8')) as { panels: { type: string; targets?: { expr: string }[] }[] };
  const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
  for (const metric of [
    'trellis_queue_depth',
    'trellis_queue_oldest_age_seconds',
    'trellis_runs',
    'trellis_messages_total',
    'trellis_step_duration_seconds_bucket',
    'trellis_join_wait_seconds_bucket',
    'trellis_lease_lapses_total',
    'trellis_admission_verdicts_total',
  ]) {
    expect(exprs.some((e) => new RegExp(`\\b${metric}\\b`).test(e)), metric).toBe(true);
  }
  expect(dashboard.panels.filter((p) => p.type !== 'row').every((p) => (p.targets ?? []).length > 0)).toBe(true);
});

describe('the guards refuse broken files', () => {
  test('a misspelt field fails the schema check', () => {
    const objects = clone(rendered.production);
    const web = find(objects, 'Deployment', 'trellis-web');
    Object.assign(container(web), { resorces: container(web).resources });
    expect(schemaProblems(web)).toContain('spec.template.spec.containers[0].resorces: unknown field');
    const so = find(objects, 'ScaledObject', 'trellis-worker-default');
    Object.assign(so.spec ?? {}, { minReplicaCont: 2 });
    expect(schemaProblems(so)).toContain('spec.minReplicaCont: unknown field');
  });

  test('a wrongly typed value fails the schema check', () => {
    const web = find(clone(rendered.production), 'Deployment', 'trellis-web');
    Object.assign(web.spec ?? {}, { replicas: 'three' });
    expect(schemaProblems(web).join('\n')).toMatch(/replicas must be integer/);
  });

  test('a missing probe, request or budget fails the Deployment rules', () => {
    const objects = clone(rendered.production);
    delete container(find(objects, 'Deployment', 'trellis-orchestrator')).readinessProbe;
    delete container(find(objects, 'Deployment', 'trellis-worker-agents')).resources?.requests?.memory;
    Object.assign(find(objects, 'Deployment', 'trellis-worker-default').spec?.template.spec ?? {}, { terminationGracePeriodSeconds: 20 });
    const withoutWebPdb = objects.filter((o) => label(o) !== 'PodDisruptionBudget trellis-web');
    expect(deploymentProblems(withoutWebPdb).sort()).toEqual([
      'Deployment trellis-orchestrator container orchestrator has no readinessProbe',
      'Deployment trellis-web is selected by 0 PodDisruptionBudgets (none); it needs exactly one',
      'Deployment trellis-worker-agents container worker has no resources.requests.memory',
      'Deployment trellis-worker-default terminationGracePeriodSeconds 20 is under 30',
      'Deployment trellis-worker-default terminationGracePeriodSeconds 20 s does not cover TRELLIS_DRAIN_MS 25000 ms + 5000 ms hand-back',
    ]);
  });

  test('a web readiness probe on /api/health, a metrics token missing from the Secret or a Job kept forever fails', () => {
    const objects = clone(rendered.production);
    const probe = container(find(objects, 'Deployment', 'trellis-web')).readinessProbe;
    if (probe?.httpGet) probe.httpGet.path = '/api/health';
    expect(deploymentProblems(objects)).toEqual(['Deployment trellis-web container web readinessProbe must GET /api/readyz (got /api/health)']);
    delete find(objects, 'Secret', 'trellis-secrets').stringData?.TRELLIS_METRICS_TOKEN;
    const open = metricsTokenProblems(objects);
    expect(open).toContain('Deployment trellis-web container web does not read TRELLIS_METRICS_TOKEN from a Secret: its metrics would be open');
    expect(open).toHaveLength(objects.filter((o) => o.kind === 'Deployment').length);
    const job = objects.find((o) => o.kind === 'Job') as { spec?: { ttlSecondsAfterFinished?: number } } | undefined;
    delete job?.spec?.ttlSecondsAfterFinished;
    expect(jobProblems(objects)).toEqual(['Job trellis-prepare has no ttlSecondsAfterFinished: a new image could not be applied while the finished Job remains']);
  });

  test('a budget that selects every worker fails', () => {
    const objects = clone(rendered.production);
    delete find(objects, 'PodDisruptionBudget', 'trellis-worker-agents').spec?.selector?.matchLabels?.['trellis/pool'];
    expect(deploymentProblems(objects).sort()).toEqual([
      'Deployment trellis-worker-default is selected by 2 PodDisruptionBudgets (trellis-worker-agents, trellis-worker-default); it needs exactly one',
      'PodDisruptionBudget trellis-worker-agents selects 2 Deployments (trellis-worker-agents, trellis-worker-default): one budget per Deployment',
    ]);
  });

  test('a pool without a ScaledObject, or one reading another list, fails the scaling rules', () => {
    const objects = clone(rendered.production);
    firstTrigger(find(objects, 'ScaledObject', 'trellis-worker-default')).listName = 'trellis:pool-default:wait';
    const withoutAgents = objects.filter((o) => label(o) !== 'ScaledObject trellis-worker-agents');
    const problems = scalingProblems(withoutAgents, true);
    expect(problems).toContain('ScaledObject trellis-worker-default has no redis trigger on {trellis}:pool-default:wait, the wait list of pool default');
    expect(problems).toContain('worker Deployment trellis-worker-agents (pool agents) is the target of 0 ScaledObjects; it needs exactly one');
  });

  test('a pool whose ScaledObject misses the urgent lane, or reads another pool\'s, fails the scaling rules', () => {
    const objects = clone(rendered.production);
    const so = find(objects, 'ScaledObject', 'trellis-worker-default');
    if (so.spec) so.spec.triggers = so.spec.triggers.filter((t) => t.name !== 'urgent-wait');
    const agents = find(objects, 'ScaledObject', 'trellis-worker-agents').spec?.triggers.find((t) => t.name === 'urgent-active');
    if (agents) agents.metadata.listName = '{trellis}:pool-default.urgent:active';
    const urgentActive = so.spec?.triggers.find((t) => t.name === 'urgent-active');
    if (urgentActive) urgentActive.metadata.listLength = '200';
    const problems = scalingProblems(objects, true);
    expect(problems).toContain("ScaledObject trellis-worker-default has no redis trigger on {trellis}:pool-default.urgent:wait, the urgent lane's wait list of pool default");
    expect(problems).toContain('ScaledObject trellis-worker-agents trigger urgent-active reads {trellis}:pool-default.urgent:active, not a list of {trellis}:pool-agents:* or {trellis}:pool-agents.urgent:*');
    expect(problems).toContain('ScaledObject trellis-worker-default trigger urgent-active listLength 200 should be 160, the urgent jobs one pod holds (TRELLIS_CONCURRENCY 200 less the TRELLIS_RESERVED_SHARE 0.2)');
    expect(problems).toHaveLength(3);
  });

  test('a misspelt trigger setting, a missing Secret key or an active target unlike the concurrency fails the scaling rules', () => {
    const objects = clone(rendered.production);
    firstTrigger(find(objects, 'ScaledObject', 'trellis-worker-agents')).listname = 'x';
    const active = find(objects, 'ScaledObject', 'trellis-worker-default').spec?.triggers.find((t) => t.name === 'active');
    if (active) active.metadata.listLength = '50';
    delete find(objects, 'Secret', 'trellis-secrets').stringData?.REDIS_TLS;
    const problems = scalingProblems(objects, true);
    expect(problems).toContain('ScaledObject trellis-worker-agents trigger wait has unknown metadata listname');
    expect(problems).toContain('TriggerAuthentication trellis-redis reads key REDIS_TLS, which Secret trellis-secrets lacks');
    expect(problems).toContain('ScaledObject trellis-worker-default trigger active listLength 50 should be TRELLIS_CONCURRENCY 200, the jobs one pod holds');
  });

  test('compose without a healthcheck or with the default stop timeout fails', () => {
    const compose = 'services:\n  web: { healthcheck: { test: [CMD, "true"] }, stop_grace_period: 30s }\n  orchestrator: { stop_grace_period: 1m }\n  worker: { healthcheck: { test: [CMD, "true"] } }\n';
    expect(composeProblems(compose, 25_000)).toEqual([
      'compose service orchestrator has no healthcheck',
      'compose service worker stop_grace_period 10000 ms does not cover TRELLIS_DRAIN_MS 25000 ms + 5000 ms',
    ]);
  });
});
