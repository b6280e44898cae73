// Build step: write .aoe-build/node/bin/{{slug}}-worker, the entrypoint aoe launches.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, ".aoe-build", "node", "bin");
const wrapper = join(bin, "{{slug}}-worker");
mkdirSync(bin, { recursive: true });
writeFileSync(wrapper, `#!/bin/sh\nexec node "${join(root, "src", "index.js")}" "$@"\n`);
chmodSync(wrapper, 0o755);
console.log(`wrote ${wrapper}`);
