use std::io::Write;
use std::process::{Command, Stdio};

use {{module}}_worker::handle_line;

#[test]
fn status_answers() {
    let reply = handle_line(r#"{"jsonrpc": "2.0", "id": 1, "method": "status"}"#).unwrap();
    assert!(reply.contains(r#""id":1"#) && reply.contains(r#""ok":true"#), "{reply}");
}

#[test]
fn unknown_methods_and_notifications() {
    let reply = handle_line(r#"{"jsonrpc": "2.0", "id": "x", "method": "nope"}"#).unwrap();
    assert!(reply.contains("-32601"), "{reply}");
    assert_eq!(handle_line(r#"{"jsonrpc": "2.0", "method": "status"}"#), None);
}

#[test]
fn the_binary_serves_stdio() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_{{slug}}-worker"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"initialize\"}\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r#""id":7"#) && text.contains("{{name}}"), "{text}");
}
