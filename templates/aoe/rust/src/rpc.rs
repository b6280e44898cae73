//! Newline-delimited JSON-RPC 2.0 over stdio, the protocol aoe speaks to workers.
//!
//! Dependency-free on purpose: the worker parses only the fields it needs.

/// The request's `id` as raw JSON text (a number or a string), if any.
pub fn request_id(line: &str) -> Option<String> {
    let rest = &line[line.find("\"id\"")? + 4..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = if let Some(s) = rest.strip_prefix('"') {
        s.find('"')? + 2
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(rest[..end].trim().to_owned())
}

/// The request's `method`, if any.
pub fn method(line: &str) -> Option<String> {
    let rest = &line[line.find("\"method\"")? + 8..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_owned())
}

/// The reply to one request line, or `None` for a notification or a blank line.
pub fn handle_line(line: &str) -> Option<String> {
    if line.trim().is_empty() {
        return None;
    }
    let id = request_id(line)?;
    let result = match method(line).as_deref() {
        Some("initialize") => r#"{"name":"{{name}}","version":"0.1.0"}"#.to_owned(),
        Some("status") => r#"{"plugin":"{{id}}","version":"0.1.0","ok":true}"#.to_owned(),
        Some("shutdown") => "null".to_owned(),
        Some(other) => {
            return Some(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"unknown method {other}"}}}}"#
            ));
        }
        None => {
            return Some(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"invalid request"}}}}"#
            ));
        }
    };
    Some(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#))
}
