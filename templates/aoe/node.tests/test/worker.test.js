import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { handleLine, METHOD_NOT_FOUND, PARSE_ERROR } from "../src/rpc.js";
import { methods, serve } from "../src/index.js";

test("status answers", () => {
  const reply = handleLine('{"jsonrpc": "2.0", "id": 1, "method": "status"}', methods);
  assert.equal(reply.id, 1);
  assert.equal(reply.result.ok, true);
});

test("unknown methods and bad JSON are errors", () => {
  assert.equal(handleLine('{"jsonrpc": "2.0", "id": 2, "method": "nope"}', methods).error.code, METHOD_NOT_FOUND);
  assert.equal(handleLine("{", methods).error.code, PARSE_ERROR);
});

test("notifications get no reply", () => {
  assert.equal(handleLine('{"jsonrpc": "2.0", "method": "status"}', methods), null);
});

test("the serve loop answers line by line", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines = serve(input, output);
  const reply = new Promise((resolve) => output.once("data", (chunk) => resolve(JSON.parse(chunk.toString()))));
  input.write('{"jsonrpc": "2.0", "id": 7, "method": "initialize"}\n');
  assert.equal((await reply).result.name, "{{name}}");
  lines.close();
});
