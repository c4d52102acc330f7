/**
 * infra/k8s validated against the Kubernetes API's schemas, as the API server would check the
 * objects' types, required fields and enums: every object by the model of its apiVersion and
 * kind from `kubernetes-models` (the OpenAPI schemas of the Kubernetes API), the KEDA
 * ScaledObject by `@kubernetes-models/keda` and the PodMonitor by
 * `@kubernetes-models/prometheus-operator` (the CRDs' schemas). The files' meaning (ports,
 * probes, env) is test/e2e/infra.e2e.test.ts's.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import * as kubernetes from 'kubernetes-models';
import * as keda from '@kubernetes-models/keda';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator';

const K8S = resolve(__dirname, '../../infra/k8s');

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: object): { validate(): void };
}

/** Every model class the packages export, by `<apiVersion>/<kind>`. */
function models(...roots: object[]): Map<string, ModelClass> {
  const found = new Map<string, ModelClass>();
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value === 'function') {
      const model = value as Partial<ModelClass>;
      if (typeof model.apiVersion === 'string' && typeof model.kind === 'string')
        found.set(`${model.apiVersion}/${model.kind}`, value as ModelClass);
    } else if (typeof value === 'object' && value !== null && !seen.has(value)) {
      seen.add(value);
      for (const child of Object.values(value)) visit(child);
    }
  };
  for (const root of roots) visit(root);
  return found;
}

const MODELS = models(kubernetes, keda, prometheusOperator);

/** Every object in infra/k8s with the file it is in. */
const objects = readdirSync(K8S)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((doc) => {
      expect(doc.errors, file).toEqual([]);
      return { file, object: doc.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } };
    }),
  )
  .filter(({ object }) => object !== null);

/** Not an API object: kustomize's own file, read by `kubectl apply -k` on the client. */
const isKustomization = (o: { apiVersion: string }) => o.apiVersion.startsWith('kustomize.config.k8s.io/');

describe('infra/k8s against the Kubernetes API schemas', () => {
  it('the validator knows the kinds and rejects what the API server would', () => {
    expect(MODELS.size).toBeGreaterThan(100);
    for (const kind of [
      'apps/v1/Deployment',
      'keda.sh/v1alpha1/ScaledObject',
      'monitoring.coreos.com/v1/PodMonitor',
    ])
      expect(MODELS.has(kind), kind).toBe(true);
    // a real Deployment of the repository, spoiled in the ways a schema catches
    const deployment = objects.find(({ object }) => object.kind === 'Deployment')!.object as any;
    const Deployment = MODELS.get('apps/v1/Deployment')!;
    expect(() => new Deployment(deployment).validate()).not.toThrow();
    const spoiled = structuredClone(deployment);
    spoiled.spec.replicas = 'two';
    expect(() => new Deployment(spoiled).validate()).toThrow(/spec\/replicas must be integer/);
    const nameless = structuredClone(deployment);
    delete nameless.spec.template.spec.containers[0].name;
    expect(() => new Deployment(nameless).validate()).toThrow(
      /containers\/0 must have required property name/,
    );
  });

  it('every object validates against the schema of its apiVersion and kind', () => {
    const checked = objects.filter(({ object }) => !isKustomization(object));
    expect(checked.length).toBeGreaterThan(20);
    expect(objects.filter(({ object }) => isKustomization(object)).map(({ file }) => file)).toEqual([
      'kustomization.yaml',
    ]);
    const failures: string[] = [];
    for (const { file, object } of checked) {
      const where = `${file}: ${object.kind} ${object.metadata?.name}`;
      const Model = MODELS.get(`${object.apiVersion}/${object.kind}`);
      if (!Model) {
        failures.push(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
        continue;
      }
      try {
        new Model(object).validate();
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
