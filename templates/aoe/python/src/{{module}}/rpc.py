"""Newline-delimited JSON-RPC 2.0 over stdio, the protocol aoe speaks to workers."""

import json

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601


def response(request_id, result=None, error=None):
    """One JSON-RPC response object."""
    message = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    return message


def handle_line(line, methods):
    """Handle one request line; return the response dict, or None for a notification."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return response(None, error={"code": PARSE_ERROR, "message": str(exc)})
    if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or "method" not in request:
        return response(None, error={"code": INVALID_REQUEST, "message": "invalid request"})
    method = methods.get(request["method"])
    if "id" not in request:
        if method is not None:
            method(request.get("params") or {})
        return None
    if method is None:
        return response(request["id"], error={"code": METHOD_NOT_FOUND, "message": "unknown method " + str(request["method"])})
    return response(request["id"], method(request.get("params") or {}))
