/**
 * Offline schema validation of rendered Kubernetes objects: the Kubernetes API's own OpenAPI
 * schemas (kubernetes-models) and KEDA's CRD schemas (@kubernetes-models/keda), both compiled ajv
 * validators, plus strict unknown-field detection, which those validators lack (they accept any
 * extra property, so `resorces:` would pass).
 *
 * Strictness works by watching the validator: every object is handed to it behind a Proxy that
 * records which properties the validator read. A compiled validator reads every property its
 * schema declares (`properties`, `required`) and walks every key of a map (`additionalProperties`),
 * so a key it never read on an object it did inspect is a field the schema does not know. Objects
 * the validator never looks into (free-form, `x-kubernetes-preserve-unknown-fields`) are left alone.
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';

/** A model class of kubernetes-models: its prototype's `validate()` runs the schema on `this`. */
interface ModelClass {
  prototype: { validate(): void };
}

/** The kinds the deployment files may contain, by `apiVersion/kind`. Any other kind is refused. */
const MODELS: Readonly<Record<string, ModelClass>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

/** The `apiVersion/kind` pairs {@link schemaProblems} knows. */
export const KNOWN_KINDS: readonly string[] = Object.keys(MODELS);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * What is wrong with one object against its kind's schema: schema errors (ajv's messages, with the
 * JSON path) and unknown fields (`spec.template.spec.containers[0].resorces: unknown field`).
 * Empty when the object is valid. An object of a kind not in {@link KNOWN_KINDS} is one problem.
 */
export function schemaProblems(object: unknown): string[] {
  if (!isObject(object)) return ['not an object'];
  const type = `${String(object.apiVersion)}/${String(object.kind)}`;
  const model = MODELS[type];
  if (!model) return [`no schema for ${type}: add its model to packages/deploy/src/schema.ts`];

  const reads = new WeakMap<object, Set<PropertyKey>>();
  const proxies = new WeakMap<object, object>();
  const watch = (value: unknown): unknown => {
    if (!isObject(value)) return value;
    let proxy = proxies.get(value);
    if (!proxy) {
      const read = new Set<PropertyKey>();
      reads.set(value, read);
      proxy = new Proxy(value, {
        get(target, key, receiver) {
          read.add(key);
          return watch(Reflect.get(target, key, receiver));
        },
      });
      proxies.set(value, proxy);
    }
    return proxy;
  };

  const problems: string[] = [];
  try {
    model.prototype.validate.call(watch(object));
  } catch (err) {
    problems.push(err instanceof Error ? err.message : String(err));
  }
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${path}[${i}]`));
      return;
    }
    if (!isObject(value)) return;
    const read = reads.get(value);
    for (const key of Object.keys(value)) {
      const at = path ? `${path}.${key}` : key;
      if (read && read.size > 0 && !read.has(key)) problems.push(`${at}: unknown field`);
      walk(value[key], at);
    }
  };
  walk(object, '');
  return problems;
}
