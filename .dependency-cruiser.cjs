// The layering of src/, bottom up (docs/ARCHITECTURE.md "Layers"): a module may import from
// its own layer and the layers below it, never from a layer above, and no import cycle may
// exist anywhere (type-only imports included). Run by `npm run lint:deps` in CI.
const LAYERS = [
  ["core"],
  ["util"],
  ["workdir"],
  ["executor"],
  ["corpus"],
  ["features"],
  ["sketch"],
  ["runs"],
  ["pleb"],
  ["clusters"],
  ["output"],
  ["eval"],
  ["report"],
  ["methods", "paragraph-dedup", "clean"],
  ["cli", "cli.ts", "index.ts"],
];

const pathOf = (names) => `^src/(${names.map((n) => n.replace(/\./g, "\\.")).join("|")})($|/)`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer[0]}`,
  comment: `${layer.join(", ")} may import only from layers below it (docs/ARCHITECTURE.md)`,
  severity: "error",
  from: { path: pathOf(layer) },
  to: { path: pathOf(LAYERS.slice(i + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {

  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle, type-only imports included",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-is-a-leaf",
      comment: "core/ imports nothing of the project",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/", pathNot: "^src/core/" },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
