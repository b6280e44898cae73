// Newline-delimited JSON-RPC 2.0 over stdio, the protocol aoe speaks to workers.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;

export function response(id, result, error) {
  return error ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result: result ?? null };
}

// Handle one request line; returns the response object, or null for a notification.
export function handleLine(line, methods) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    return response(null, undefined, { code: PARSE_ERROR, message: String(err.message) });
  }
  if (typeof request !== "object" || request === null || request.jsonrpc !== "2.0" || !("method" in request)) {
    return response(null, undefined, { code: INVALID_REQUEST, message: "invalid request" });
  }
  const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (!("id" in request)) {
    if (method) method(request.params ?? {});
    return null;
  }
  if (!method) {
    return response(request.id, undefined, { code: METHOD_NOT_FOUND, message: `unknown method ${request.method}` });
  }
  return response(request.id, method(request.params ?? {}));
}
