// The worker process aoe launches: answers JSON-RPC requests on stdin/stdout.
import { createInterface } from "node:readline";
import { handleLine } from "./rpc.js";

export const methods = {
  initialize: () => ({ name: "{{name}}", version: "0.1.0" }),
  status: () => ({ plugin: "{{id}}", version: "0.1.0", ok: true }),
  shutdown: () => null,
};

export function serve(input = process.stdin, output = process.stdout) {
  const lines = createInterface({ input });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const reply = handleLine(line, methods);
    if (reply) output.write(JSON.stringify(reply) + "\n");
  });
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve();
}
