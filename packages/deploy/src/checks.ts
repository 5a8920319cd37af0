/**
 * Rules the rendered deployment files must keep beyond their schemas: probes, requests and limits,
 * a PodDisruptionBudget per Deployment, a stop timeout longer than the drain, references that
 * resolve, and, where KEDA scales the workers, one ScaledObject per pool reading that pool's BullMQ
 * lists (both lanes) under the engine's own key names. Every check returns problems as sentences naming the
 * object and field; an empty list means the rules hold. Run them on objects that passed
 * schema.ts, whose shapes they then rely on.
 */
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { parse } from 'yaml';
// The deployment files name Redis keys and settings the engine defines: ask the engine itself.
import { loadEngineEnv } from '../../engine/src/kernel/env';
import { queueName } from '../../engine/src/kernel/queues';
import { reservedSlots } from '../../engine/src/kernel/priority';
import type { K8sObject } from './render';

/** Kubernetes' default terminationGracePeriodSeconds. */
const DEFAULT_GRACE_SECONDS = 30;
/** After TRELLIS_DRAIN_MS a stopping process takes up to this long to hand work back, ms. */
export const DRAIN_GRACE_MS = 5_000;
/** TRELLIS_DRAIN_MS when the ConfigMap does not set it, ms. */
const DEFAULT_DRAIN_MS = 25_000;
/** The ConfigMap every Trellis container reads. */
const CONFIG_NAME = 'trellis-config';

/** Metadata of KEDA's `redis` trigger (keda.sh/docs/scalers/redis-lists, "Parameter list"). */
const REDIS_TRIGGER_METADATA = new Set([
  'address', 'addressFromEnv', 'host', 'hostFromEnv', 'port', 'portFromEnv', 'usernameFromEnv', 'passwordFromEnv',
  'listName', 'listLength', 'activationListLength', 'enableTLS', 'unsafeSsl', 'databaseIndex',
]);
/** TriggerAuthentication parameters of the redis scaler (the same page, "Authentication Parameters"). */
const REDIS_AUTH_PARAMETERS = new Set(['address', 'host', 'port', 'username', 'password', 'tls', 'ca', 'cert', 'key', 'keyPassword']);

const name = (o: { metadata?: { name?: string } }): string => o.metadata?.name ?? '(unnamed)';
const ofKind = <T>(objects: readonly K8sObject[], kind: string): T[] => objects.filter((o) => o.kind === kind) as T[];

/** True when every pair of `selector` is among `labels` (an empty selector selects nothing here). */
function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  const pairs = Object.entries(selector ?? {});
  return pairs.length > 0 && pairs.every(([k, v]) => labels?.[k] === v);
}

/** The settings every container reads (trellis-config's data), or undefined without that ConfigMap. */
export function trellisConfig(objects: readonly K8sObject[]): Record<string, string> | undefined {
  return ofKind<IConfigMap>(objects, 'ConfigMap').find((c) => name(c) === CONFIG_NAME)?.data;
}

/**
 * The engine's settings as a process on Postgres reads them from `config` (kernel/env.ts
 * `loadEngineEnv`). @throws Error naming a variable the engine would refuse.
 */
function engineEnvOf(config: Record<string, string>): ReturnType<typeof loadEngineEnv> {
  return loadEngineEnv({ DATABASE_URL: 'postgres://placeholder/trellis', ...config });
}

/** The BullMQ prefix the engine derives from `config` on Postgres. */
export function queuePrefixOf(config: Record<string, string>): string {
  return engineEnvOf(config).queuePrefix;
}

/** The port number a probe's port (a number or a container port's name) means in `container`. */
function probePort(probe: IProbe, container: IContainer): number | undefined {
  const port = probe.httpGet?.port ?? probe.tcpSocket?.port ?? probe.grpc?.port;
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Problems of one container: probes, requests and limits, and where its health endpoints are. */
function containerProblems(where: string, c: IContainer, component: string | undefined, healthPort: number): string[] {
  const problems: string[] = [];
  const at = `${where} container ${c.name}`;
  for (const [field, probe] of [['livenessProbe', c.livenessProbe], ['readinessProbe', c.readinessProbe]] as const) {
    if (!probe) problems.push(`${at} has no ${field}`);
    else if (probePort(probe, c) === undefined) problems.push(`${at} ${field} names a port the container does not declare`);
  }
  for (const kind of ['requests', 'limits'] as const) {
    for (const resource of ['cpu', 'memory']) {
      if (c.resources?.[kind]?.[resource] === undefined) problems.push(`${at} has no resources.${kind}.${resource}`);
    }
  }
  const expect = (field: 'livenessProbe' | 'readinessProbe', path: string, port?: number) => {
    const probe = c[field];
    if (!probe) return;
    if (probe.httpGet?.path !== path) problems.push(`${at} ${field} must GET ${path} (got ${probe.httpGet?.path ?? 'no httpGet'})`);
    if (port !== undefined && probePort(probe, c) !== port) problems.push(`${at} ${field} must use TRELLIS_HEALTH_PORT ${port}`);
  };
  if (component === 'orchestrator' || component === 'worker') {
    expect('livenessProbe', '/livez', healthPort);
    expect('readinessProbe', '/readyz', healthPort);
  }
  // /api/readyz is /api/health plus draining: a stopping web pod must leave the Service.
  if (component === 'web') expect('readinessProbe', '/api/readyz');
  return problems;
}

/** Problems of one pod template: its containers, its stop timeout against the drain, and its references. */
function podProblems(where: string, template: IPodTemplateSpec, objects: readonly K8sObject[], config: Record<string, string>): string[] {
  const problems: string[] = [];
  const component = template.metadata?.labels?.['app.kubernetes.io/component'];
  const healthPort = Number(config.TRELLIS_HEALTH_PORT);
  const drainMs = Number(config.TRELLIS_DRAIN_MS ?? DEFAULT_DRAIN_MS);
  const grace = template.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  if (grace < DEFAULT_GRACE_SECONDS) problems.push(`${where} terminationGracePeriodSeconds ${grace} is under ${DEFAULT_GRACE_SECONDS}`);
  if (grace * 1000 < drainMs + DRAIN_GRACE_MS) {
    problems.push(`${where} terminationGracePeriodSeconds ${grace} s does not cover TRELLIS_DRAIN_MS ${drainMs} ms + ${DRAIN_GRACE_MS} ms hand-back`);
  }
  for (const c of template.spec?.containers ?? []) {
    problems.push(...containerProblems(where, c, component, healthPort));
    for (const from of c.envFrom ?? []) {
      const ref = from.configMapRef ? ['ConfigMap', from.configMapRef.name] : from.secretRef ? ['Secret', from.secretRef.name] : undefined;
      if (ref && !objects.some((o) => o.kind === ref[0] && name(o) === ref[1])) {
        problems.push(`${where} container ${c.name} reads ${ref[0]} ${ref[1]}, which is not in the build`);
      }
    }
  }
  return problems;
}

/** The setting that puts /metrics and /api/metrics behind a bearer token (kernel/env.ts). */
const METRICS_TOKEN = 'TRELLIS_METRICS_TOKEN';

/** True when `secret` (in the build) has `key` in its data or stringData. */
function secretHas(objects: readonly K8sObject[], secretName: string, key: string): boolean {
  const secret = ofKind<ISecret>(objects, 'Secret').find((s) => name(s) === secretName);
  return secret !== undefined && (key in (secret.stringData ?? {}) || key in (secret.data ?? {}));
}

/**
 * A production build's metrics are not open: every Deployment's containers read TRELLIS_METRICS_TOKEN
 * from a Secret of the build (an `env` secretKeyRef, or `envFrom` a Secret holding the key), and the
 * ConfigMap does not set it in plain text.
 */
export function metricsTokenProblems(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  if (trellisConfig(objects)?.[METRICS_TOKEN] !== undefined) problems.push(`ConfigMap ${CONFIG_NAME} sets ${METRICS_TOKEN} in plain text: keep it in a Secret`);
  for (const d of ofKind<IDeployment>(objects, 'Deployment')) {
    for (const c of d.spec?.template.spec?.containers ?? []) {
      const direct = c.env?.find((e) => e.name === METRICS_TOKEN);
      const fromSecret = direct
        ? direct.valueFrom?.secretKeyRef !== undefined && secretHas(objects, direct.valueFrom.secretKeyRef.name ?? '', direct.valueFrom.secretKeyRef.key)
        : (c.envFrom ?? []).some((f) => f.secretRef !== undefined && secretHas(objects, f.secretRef.name ?? '', METRICS_TOKEN));
      if (!fromSecret) problems.push(`Deployment ${name(d)} container ${c.name} does not read ${METRICS_TOKEN} from a Secret: its metrics would be open`);
    }
  }
  return problems;
}

/**
 * Every Job sets ttlSecondsAfterFinished: a Job's pod template cannot change, so a finished prepare
 * Job left in place makes the next `kubectl apply` with a new image fail.
 */
export function jobProblems(objects: readonly K8sObject[]): string[] {
  return ofKind<IJob>(objects, 'Job')
    .filter((j) => j.spec?.ttlSecondsAfterFinished === undefined)
    .map((j) => `Job ${name(j)} has no ttlSecondsAfterFinished: a new image could not be applied while the finished Job remains`);
}

/**
 * Every Deployment: a selector matching its pods, probes, requests and limits on each container,
 * a stop timeout of at least 30 s covering TRELLIS_DRAIN_MS plus the hand-back grace, references
 * that resolve, and exactly one PodDisruptionBudget that selects its pods and no other Deployment's.
 */
export function deploymentProblems(objects: readonly K8sObject[]): string[] {
  const config = trellisConfig(objects);
  if (!config) return [`no ConfigMap ${CONFIG_NAME} in the build`];
  const problems: string[] = [];
  const deployments = ofKind<IDeployment>(objects, 'Deployment');
  const pdbs = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget');
  if (deployments.length === 0) problems.push('the build has no Deployment');
  for (const d of deployments) {
    const where = `Deployment ${name(d)}`;
    const labels = d.spec?.template.metadata?.labels;
    if (!selects(d.spec?.selector.matchLabels, labels)) problems.push(`${where} selector does not match its pod labels`);
    if (d.spec?.template) problems.push(...podProblems(where, d.spec.template, objects, config));
    const mine = pdbs.filter((p) => selects(p.spec?.selector?.matchLabels, labels));
    if (mine.length !== 1) problems.push(`${where} is selected by ${mine.length} PodDisruptionBudgets (${mine.map(name).join(', ') || 'none'}); it needs exactly one`);
  }
  for (const p of pdbs) {
    const selected = deployments.filter((d) => selects(p.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels));
    if (selected.length !== 1) {
      problems.push(`PodDisruptionBudget ${name(p)} selects ${selected.length} Deployments (${selected.map(name).join(', ') || 'none'}): one budget per Deployment`);
    }
  }
  return problems;
}

/** Every Service selects pods of some workload in the build, on a port those pods declare. */
export function serviceProblems(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const templates = objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
    .map((o) => (o as { spec?: { template?: IPodTemplateSpec } }).spec?.template)
    .filter((t): t is IPodTemplateSpec => t !== undefined);
  for (const s of ofKind<IService>(objects, 'Service')) {
    if (s.spec?.type === 'ExternalName') continue;
    const pods = templates.filter((t) => selects(s.spec?.selector, t.metadata?.labels));
    if (pods.length === 0) {
      problems.push(`Service ${name(s)} selects no pods in the build`);
      continue;
    }
    for (const port of s.spec?.ports ?? []) {
      const target = port.targetPort ?? port.port;
      const declared = pods.every((t) => t.spec?.containers.some((c) => c.ports?.some((p) => p.name === target || p.containerPort === target)));
      if (!declared) problems.push(`Service ${name(s)} port ${port.name ?? port.port} targets ${target}, which its pods do not declare`);
    }
  }
  return problems;
}

/** The pool a worker Deployment serves: its TRELLIS_POOLS, which must name one pool. */
function poolOf(d: IDeployment): string | undefined {
  const values = (d.spec?.template.spec?.containers ?? []).flatMap((c) => (c.env ?? []).filter((e) => e.name === 'TRELLIS_POOLS').map((e) => e.value));
  return values.length === 1 ? values[0] : undefined;
}

/**
 * Worker Deployments (app.kubernetes.io/component=worker) each serve one pool, named by
 * TRELLIS_POOLS. With `scaled`, each has exactly one ScaledObject targeting it and no fixed
 * replicas, whose redis triggers read that pool's lists: one the wait list
 * `<prefix>:<queueName(pool)>:wait`, one the urgent lane's wait list
 * `<prefix>:<queueName(pool, 'urgent')>:wait`, the rest other lists of those two queues, prefix and
 * queue names as the engine derives them. A trigger on the normal active list targets
 * TRELLIS_CONCURRENCY; one on the urgent active list the slots urgent work may hold
 * (TRELLIS_CONCURRENCY less kernel/priority.ts `reservedSlots` for TRELLIS_RESERVED_SHARE).
 * Triggers use only the redis scaler's documented metadata and a TriggerAuthentication whose
 * Secret keys exist. Without `scaled`, the build has no ScaledObject.
 */
export function scalingProblems(objects: readonly K8sObject[], scaled: boolean): string[] {
  const config = trellisConfig(objects);
  if (!config) return [`no ConfigMap ${CONFIG_NAME} in the build`];
  const problems: string[] = [];
  const prefix = queuePrefixOf(config);
  const { concurrency, reservedShare } = engineEnvOf(config);
  const urgentSlots = concurrency - reservedSlots(Math.max(concurrency, 1), reservedShare);
  const workers = ofKind<IDeployment>(objects, 'Deployment').filter((d) => d.spec?.template.metadata?.labels?.['app.kubernetes.io/component'] === 'worker');
  const scaledObjects = ofKind<IScaledObject>(objects, 'ScaledObject');
  const auths = ofKind<ITriggerAuthentication>(objects, 'TriggerAuthentication');
  const secrets = ofKind<ISecret>(objects, 'Secret');
  if (workers.length === 0) problems.push('the build has no worker Deployment');
  if (!scaled) {
    if (scaledObjects.length > 0) problems.push(`this build should not scale with KEDA but has ${scaledObjects.map(name).join(', ')}`);
    return problems;
  }
  for (const d of workers) {
    const where = `worker Deployment ${name(d)}`;
    const pool = poolOf(d);
    if (!pool || !/^[A-Za-z0-9_-]{1,63}$/.test(pool)) {
      problems.push(`${where} must name exactly one pool in TRELLIS_POOLS (got ${pool ?? 'none'})`);
      continue;
    }
    if (d.spec?.replicas !== undefined) problems.push(`${where} fixes replicas ${d.spec.replicas}: KEDA owns the count`);
    const mine = scaledObjects.filter((s) => s.spec?.scaleTargetRef.name === name(d) && (s.spec.scaleTargetRef.kind ?? 'Deployment') === 'Deployment');
    if (mine.length !== 1) {
      problems.push(`${where} (pool ${pool}) is the target of ${mine.length} ScaledObjects; it needs exactly one`);
      continue;
    }
    const so = mine[0];
    const queueKeys = `${prefix}:${queueName(pool)}:`;
    const urgentKeys = `${prefix}:${queueName(pool, 'urgent')}:`;
    const redis = (so?.spec?.triggers ?? []).filter((t) => t.type === 'redis');
    if (!redis.some((t) => t.metadata.listName === `${queueKeys}wait`)) {
      problems.push(`ScaledObject ${name(so ?? {})} has no redis trigger on ${queueKeys}wait, the wait list of pool ${pool}`);
    }
    if (!redis.some((t) => t.metadata.listName === `${urgentKeys}wait`)) {
      problems.push(`ScaledObject ${name(so ?? {})} has no redis trigger on ${urgentKeys}wait, the urgent lane's wait list of pool ${pool}`);
    }
    for (const t of redis) {
      const at = `ScaledObject ${name(so ?? {})} trigger ${t.name ?? t.metadata.listName ?? '?'}`;
      const list = t.metadata.listName;
      if (!list?.startsWith(queueKeys) && !list?.startsWith(urgentKeys)) {
        problems.push(`${at} reads ${list ?? 'no list'}, not a list of ${queueKeys}* or ${urgentKeys}*`);
      }
      for (const key of Object.keys(t.metadata)) if (!REDIS_TRIGGER_METADATA.has(key)) problems.push(`${at} has unknown metadata ${key}`);
      if (t.metadata.listLength !== undefined && !/^[1-9][0-9]*$/.test(t.metadata.listLength)) problems.push(`${at} listLength must be a positive integer`);
      // The active list holds at most TRELLIS_CONCURRENCY jobs per pod: that is one pod's worth.
      if (list === `${queueKeys}active` && Number(t.metadata.listLength) !== concurrency) {
        problems.push(`${at} listLength ${t.metadata.listLength ?? '(unset)'} should be TRELLIS_CONCURRENCY ${concurrency}, the jobs one pod holds`);
      }
      // Urgent jobs hold at most the slots the reserved share leaves them on a pod.
      if (list === `${urgentKeys}active` && Number(t.metadata.listLength) !== urgentSlots) {
        problems.push(`${at} listLength ${t.metadata.listLength ?? '(unset)'} should be ${urgentSlots}, the urgent jobs one pod holds (TRELLIS_CONCURRENCY ${concurrency} less the TRELLIS_RESERVED_SHARE ${reservedShare})`);
      }
      const authName = t.authenticationRef?.name;
      const auth = auths.find((a) => name(a) === authName);
      if (!auth) {
        problems.push(`${at} uses TriggerAuthentication ${authName ?? '(none)'}, which is not in the build`);
        continue;
      }
      const refs = auth.spec?.secretTargetRef ?? [];
      if (refs.some((r) => r.parameter === 'tls') && t.metadata.enableTLS !== undefined) problems.push(`${at} sets enableTLS while its TriggerAuthentication sets tls: KEDA takes one or the other`);
    }
  }
  for (const s of scaledObjects) {
    if (!workers.some((d) => name(d) === s.spec?.scaleTargetRef.name)) problems.push(`ScaledObject ${name(s)} targets ${s.spec?.scaleTargetRef.name ?? '?'}, which is not a worker Deployment`);
  }
  for (const a of auths) {
    for (const r of a.spec?.secretTargetRef ?? []) {
      if (!REDIS_AUTH_PARAMETERS.has(r.parameter)) problems.push(`TriggerAuthentication ${name(a)} has unknown parameter ${r.parameter}`);
      const secret = secrets.find((s) => name(s) === r.name);
      if (!secret) problems.push(`TriggerAuthentication ${name(a)} reads Secret ${r.name}, which is not in the build`);
      else if (!(r.key in (secret.stringData ?? {})) && !(r.key in (secret.data ?? {}))) problems.push(`TriggerAuthentication ${name(a)} reads key ${r.key}, which Secret ${r.name} lacks`);
    }
  }
  return problems;
}

/** Parses a compose duration such as `35s`, `1m30s` or `500ms` into ms; undefined when unreadable. */
export function composeDurationMs(text: string): number | undefined {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return parts.reduce((sum, p) => sum + Number(p[1]) * (unit[p[2] ?? ''] ?? 0), 0);
}

/**
 * docker/compose.yml in step with the Kubernetes files: web, orchestrator and worker each have a
 * healthcheck and a stop_grace_period that covers `drainMs` plus the hand-back grace.
 */
export function composeProblems(composeText: string, drainMs: number): string[] {
  const compose = parse(composeText) as { services?: Record<string, { healthcheck?: { test?: unknown }; stop_grace_period?: string }> };
  const problems: string[] = [];
  for (const service of ['web', 'orchestrator', 'worker']) {
    const s = compose.services?.[service];
    if (!s) {
      problems.push(`compose has no service ${service}`);
      continue;
    }
    if (!s.healthcheck?.test) problems.push(`compose service ${service} has no healthcheck`);
    const grace = s.stop_grace_period === undefined ? 10_000 : composeDurationMs(s.stop_grace_period);
    if (grace === undefined) problems.push(`compose service ${service} stop_grace_period ${s.stop_grace_period} is not a duration`);
    else if (grace < drainMs + DRAIN_GRACE_MS) problems.push(`compose service ${service} stop_grace_period ${grace} ms does not cover TRELLIS_DRAIN_MS ${drainMs} ms + ${DRAIN_GRACE_MS} ms`);
  }
  return problems;
}
