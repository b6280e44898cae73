//! The server against odd and damaged sessions.

use super::*;

fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend(body.into_bytes());
    out
}

/// A session with odd but well-framed messages, then random damage to its
/// bytes: the server answers or skips, and never panics.
#[test]
fn survives_odd_and_damaged_input() {
    let uri = "file:///nonexistent/p/aoe-plugin.toml";
    let range = |a: i64, b: i64, c: i64, d: i64| json!({ "start": { "line": a, "character": b }, "end": { "line": c, "character": d } });
    let messages = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {} }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": { "uri": uri, "version": 1, "text": "id = \"é😀\"\r\nname = [\n" } } }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": { "textDocument": { "uri": uri, "version": "x" }, "contentChanges": [
            { "range": range(0, 6, 0, 7), "text": "z" },
            { "range": range(5, 0, 0, 0), "text": "end" },
            { "range": range(0, 99, 9, 99), "text": "" },
            { "range": range(-1, 0, 0, 1), "text": "" },
            { "range": "no", "text": "x" },
            { "text": 7 },
            7,
        ] } }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": { "textDocument": { "uri": uri }, "contentChanges": "all" } }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didSave", "params": { "textDocument": { "uri": uri }, "text": null } }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": { "uri": 5 } } }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": { "uri": "file://", "text": "" } } }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": { "uri": "untitled:.aworld-plugin/plugin.json", "text": "{\"id\": [" } } }),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "textDocument/completion", "params": { "textDocument": { "uri": uri }, "position": { "line": 1, "character": 3 } } }),
        json!({ "jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": { "textDocument": { "uri": uri }, "position": { "line": 0, "character": 1 } } }),
        json!({ "jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction", "params": { "textDocument": { "uri": uri }, "range": range(0, 0, 9, 0) } }),
        json!({ "jsonrpc": "2.0", "id": 6, "method": "textDocument/completion", "params": { "textDocument": { "uri": "untitled:.aworld-plugin/plugin.json" }, "position": { "line": 0, "character": 4 } } }),
        json!({ "jsonrpc": "2.0", "method": 5, "id": [1] }),
        json!({ "jsonrpc": "2.0", "id": { "a": 1 }, "method": "textDocument/hover" }),
        json!({ "jsonrpc": "2.0", "method": "textDocument/didClose", "params": { "textDocument": { "uri": uri } } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }),
        json!({ "jsonrpc": "2.0", "method": "exit" }),
    ];
    let session: Vec<u8> = messages.iter().flat_map(frame).collect();
    let opts = ValidateOptions::default();
    let mut output = Vec::new();
    assert_eq!(
        serve(io::Cursor::new(session.clone()), &mut output, &opts).unwrap(),
        Ended::Clean
    );
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let mut bytes = session.clone();
        for _ in 0..1 + next() % 8 {
            let at = usize::try_from(next()).unwrap() % bytes.len();
            match next() % 3 {
                0 => bytes[at] = next().to_le_bytes()[0],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, b"{}[]\":0\r\n\\"[usize::try_from(next() % 10).unwrap()]),
            }
        }
        output.clear();
        serve(io::Cursor::new(bytes), &mut output, &opts).unwrap();
    }
}
