// Validates deploy/kubernetes against the Kubernetes API's own schemas (the npm package
// kubernetes-models: the OpenAPI schemas of a release that knows native sidecars), then prints
// what .ci/image needs to run the image the way the manifest does, as one line of JSON.
// Usage: node k8s-check.mjs DIR, with the script copied next to a node_modules that has
// kubernetes-models, @kubernetes/client-node and js-yaml (.ci/image installs them).
// Exit 1, naming the file, document and field, on any problem.
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import yaml from "js-yaml";
import * as k8s from "@kubernetes/client-node";
const dir = process.argv[2];
if (!dir) {
  console.error("usage: node k8s-check.mjs DIR");
  process.exit(2);
}
const problems = [];
const fail = (where, message) => problems.push(`${where}: ${message}`);

const kustomization = yaml.load(readFileSync(join(dir, "kustomization.yaml"), "utf8"));
const docs = [];
for (const file of kustomization.resources ?? []) {
  if (!existsSync(join(dir, file))) {
    fail("kustomization.yaml", `resource ${file} does not exist`);
    continue;
  }
  yaml.loadAll(readFileSync(join(dir, file), "utf8")).forEach((doc, i) => {
    if (doc) docs.push({ where: `${file}#${i + 1} (${doc.kind}/${doc.metadata?.name})`, doc });
  });
}

for (const { where, doc } of docs) {
  const [group, version] = doc.apiVersion.includes("/")
    ? doc.apiVersion.split("/")
    : [null, doc.apiVersion];
  const path = `kubernetes-models/${group ? group + "/" : ""}${version}/${doc.kind}`;
  let Model;
  try {
    Model = (await import(path))[doc.kind];
  } catch (e) {
    fail(where, `no schema for ${doc.apiVersion} ${doc.kind}`);
    continue;
  }
  try {
    new Model(doc).validate();
  } catch (e) {
    fail(where, e.message);
  }
  // Those schemas let through fields they do not know (so would the API server, with only a
  // warning); kubectl apply --validate=strict would not, nor does this: every field must be one
  // of the API's, from the client's generated models of the same OpenAPI document.
  const root = version.charAt(0).toUpperCase() + version.slice(1) + doc.kind;
  if (!k8s[root]) fail(where, `no model ${root} in @kubernetes/client-node`);
  else knownFields(where, doc, root, "");
}

function knownFields(where, value, type, path) {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((v, i) => knownFields(where, v, array[1], `${path}[${i}]`));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    for (const [k, v] of Object.entries(value)) knownFields(where, v, map[1], `${path}.${k}`);
    return;
  }
  const model = k8s[type];
  if (typeof model?.getAttributeTypeMap !== "function" || typeof value !== "object") return;
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [k, v] of Object.entries(value)) {
    if (!attributes.has(k)) fail(where, `unknown field ${path ? path.slice(1) + "." : ""}${k} (${type} has ${[...attributes.keys()].join(", ")})`);
    else knownFields(where, v, attributes.get(k), `${path}.${k}`);
  }
}

const deployment = docs.find((d) => d.doc.kind === "Deployment")?.doc;
if (!deployment) fail("deploy/kubernetes", "no Deployment");
const pod = deployment?.spec?.template?.spec ?? {};
const sidecar = (pod.initContainers ?? []).find((c) => c.name === "memsidecar");
if (!sidecar) fail("deployment", "no init container named memsidecar");
else if (sidecar.restartPolicy !== "Always")
  fail("deployment", "memsidecar is not a native sidecar (restartPolicy: Always)");

if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
const volumes = Object.fromEntries((pod.volumes ?? []).map((v) => [v.name, v]));
const mounts = Object.fromEntries(
  sidecar.volumeMounts.map((m) => [m.mountPath, { name: m.name, kind: Object.keys(volumes[m.name] ?? {}).find((k) => k !== "name") }]),
);
const probes = ["startupProbe", "livenessProbe", "readinessProbe"]
  .filter((p) => sidecar[p])
  .map((p) => ({ probe: p, port: sidecar[p].grpc?.port, service: sidecar[p].grpc?.service ?? "" }));
console.log(
  JSON.stringify({
    image: sidecar.image,
    args: sidecar.args ?? [],
    env: sidecar.env ?? [],
    ports: (sidecar.ports ?? []).map((p) => p.containerPort),
    probes,
    mounts,
    runAsUser: sidecar.securityContext?.runAsUser ?? pod.securityContext?.runAsUser,
    runAsGroup: sidecar.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup,
    readOnlyRootFilesystem: sidecar.securityContext?.readOnlyRootFilesystem === true,
  }),
);
