//! `plugins lsp`: the protocol over pipes (framing, errors, lifecycle, what
//! each manifest's diagnostics look like on the wire), and a real editor as
//! the client (Neovim's built-in LSP client, headless: tests/lsp/client.lua).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use snapbox::{IntoData, assert_data_eq, str};

use crate::support::*;

/// A client speaking to `plugins lsp` over its stdin and stdout.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: mpsc::Receiver<Value>,
    next_id: i64,
}

impl Client {
    fn start(cwd: &Path) -> Self {
        Self::start_with(cwd, &[])
    }

    fn start_with(cwd: &Path, args: &[&str]) -> Self {
        let mut child = Plugins::new()
            .arg("lsp")
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn();
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            while let Some(message) = read_framed(&mut stdout) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            messages,
            next_id: 0,
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Send a request; its id.
    fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    fn recv(&self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(30))
            .expect("the server answers within 30 s")
    }

    fn initialize(&mut self) -> Value {
        self.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        let answer = self.recv();
        self.notify("initialized", json!({}));
        answer
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "", "version": 1, "text": text } }),
        );
    }

    fn change(&mut self, path: &Path, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri(path), "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    /// Close stdin and wait: the exit code.
    fn wait(mut self) -> i32 {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        status.code().unwrap()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_framed(input: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("the server sends JSON"))
}

fn uri(path: &Path) -> String {
    let s = path.to_str().unwrap();
    format!("file://{}", s.replace('%', "%25").replace(' ', "%20"))
}

/// Published diagnostics as lines: range, severity, code, message (indented),
/// related information.
fn show(published: &Value) -> String {
    let pos = |p: &Value| format!("{}:{}", p["line"], p["character"]);
    let range = |r: &Value| format!("{}-{}", pos(&r["start"]), pos(&r["end"]));
    let mut out = String::new();
    for d in published["params"]["diagnostics"].as_array().unwrap() {
        let severity = match d["severity"].as_u64() {
            Some(1) => "error",
            Some(2) => "warning",
            _ => "?",
        };
        out.push_str(&format!(
            "{} {severity} {}\n",
            range(&d["range"]),
            d["code"].as_str().unwrap()
        ));
        for line in d["message"].as_str().unwrap().lines() {
            out.push_str(&format!("  | {line}\n"));
        }
        for r in d["relatedInformation"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "  related {}: {}\n",
                range(&r["location"]["range"]),
                r["message"].as_str().unwrap()
            ));
        }
    }
    out
}

/// A message with the framing headers and all, and what answers it.
/// One frame with an unusable length and a body (negative, two that disagree, a
/// non-ASCII header name) costs one parse error; the next request is answered.
#[test]
fn a_bad_frame_with_a_body_does_not_desynchronise_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let mut client = Client::start(tmp.path());
    client.initialize();
    let body = r#"{"jsonrpc":"2.0","id":99,"method":"shutdown"}"#;
    let bad: [String; 3] = [
        format!("Content-Length: -{}\r\n\r\n{body}", body.len()),
        format!(
            "Content-Length: 3\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
        format!("C\u{f6}ntent-Length: {}\r\n\r\n{body}", body.len()),
    ];
    for (n, frame) in bad.iter().enumerate() {
        client.raw(frame.as_bytes());
        let error = client.recv();
        assert_eq!(error["error"]["code"], -32700, "{frame}: {error}");
        let id = client.request("textDocument/definition", json!({}));
        let answer = client.recv();
        assert_eq!(
            answer["id"], id,
            "frame {n} desynchronised the server: {answer}"
        );
    }
    client.request("shutdown", Value::Null);
    client.recv();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 0);
}

#[test]
fn protocol_errors_and_lifecycle() {
    let tmp = tempfile::tempdir().unwrap();
    let mut client = Client::start(tmp.path());
    // Before initialize: refused, not dropped.
    let early = client.request("shutdown", Value::Null);
    assert_data_eq!(
        client.recv().to_string(),
        str![[r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"initialize first"}}"#]]
            .raw()
    );
    assert_eq!(early, 1);
    let initialized = client
        .initialize()
        .to_string()
        .replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
    assert_data_eq!(initialized, str![[r#"{"jsonrpc":"2.0","id":2,"result":{"capabilities":{"textDocumentSync":{"openClose":true,"change":1,"save":{"includeText":true}},"codeActionProvider":{"codeActionKinds":["quickfix"]},"hoverProvider":true,"completionProvider":{"triggerCharacters":[]}},"serverInfo":{"name":"plugins","version":"[VERSION]"}}}"#]].raw());
    // Framing the server cannot read: a parse error each, and it goes on.
    client.raw(b"Content-Lenght: 2\r\n\r\n");
    assert_data_eq!(client.recv().to_string(), str![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the message has no Content-Length header"}}"#]].raw());
    client.raw(b"Content-Length: many\r\n\r\n");
    assert_data_eq!(client.recv().to_string(), str![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Content-Length \"many\" is not a number"}}"#]].raw());
    client.raw(b"Content-Length: 9\r\n\r\n{\"id\": 1,");
    assert_data_eq!(client.recv().to_string(), str![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the body is not JSON: EOF while parsing a value at line 1 column 9"}}"#]].raw());
    client.raw(b"Content-Length: 2\r\n\r\n[]");
    assert_data_eq!(client.recv().to_string(), str![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC request or notification"}}"#]].raw());
    // Requests the server does not know.
    client.request("textDocument/definition", json!({}));
    assert_data_eq!(client.recv().to_string(), str![[r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method \"textDocument/definition\" is not supported"}}"#]].raw());
    // A notification it does not know, and a file that is not a manifest: no answer
    // (the next message is the shutdown's).
    client.notify("$/setTrace", json!({ "value": "off" }));
    client.open(&tmp.path().join("Cargo.toml"), "[package]\nname = 1\n");
    client.request("shutdown", Value::Null);
    assert_data_eq!(
        client.recv().to_string(),
        str![[r#"{"jsonrpc":"2.0","id":4,"result":null}"#]].raw()
    );
    client.request("shutdown", Value::Null);
    assert_data_eq!(client.recv().to_string(), str![[r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"the server is shutting down"}}"#]].raw());
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 0);

    // exit without shutdown, and a client that goes away: exit code 1.
    let mut client = Client::start(tmp.path());
    client.initialize();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 1);
    let mut client = Client::start(tmp.path());
    client.raw(b"Content-Length: 100\r\n\r\n{");
    assert_eq!(client.wait(), 1);
}

#[test]
fn publishes_each_dialects_diagnostics_as_the_buffer_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut client = Client::start(tmp.path());
    client.initialize();

    // aoe: UTF-16 columns after an emoji, a did-you-mean help, a secondary label.
    let aoe = tmp.path().join("kanban dir/aoe-plugin.toml");
    std::fs::create_dir_all(aoe.parent().unwrap().join("bin")).unwrap();
    std::fs::write(aoe.parent().unwrap().join("bin/worker"), "#!/bin/sh\n").unwrap();
    let broken = CLEAN_AOE
        .replace("version = \"0.1.0\"", "version = \"é1\"")
        .replace("[\"runtime.worker\"]", "[\"😀\", \"runtime.workr\"]");
    client.open(&aoe, &broken);
    let published = client.recv();
    assert_eq!(published["params"]["uri"], uri(&aoe));
    assert_eq!(published["params"]["version"], 1);
    assert_data_eq!(show(&published), str![[r#"
2:10-2:14 warning plugins::aoe::version_not_semver
  | version "é1" is not a semantic version
  | help: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
5:16-5:20 warning plugins::aoe::unknown_capability
  | plugin requests capabilities this host does not support: 😀, runtime.workr; upgrade aoe
  | not a capability of aoe 1.19.0
  | help: did you mean: `runtime.workr` → `runtime.worker`
  related 5:22-5:37: also unknown

"#]].raw());
    // The whole wire form of one, once.
    assert_data_eq!(
        serde_json::to_string_pretty(&published["params"]["diagnostics"][1])
            .unwrap()
            .replace(&uri(tmp.path()), "file://[TMP]"),
        str![[r#"
{
  "range": {
    "start": {
      "line": 5,
      "character": 16
    },
    "end": {
      "line": 5,
      "character": 20
    }
  },
  "severity": 2,
  "code": "plugins::aoe::unknown_capability",
  "source": "plugins",
  "message": "plugin requests capabilities this host does not support: 😀, runtime.workr; upgrade aoe\nnot a capability of aoe 1.19.0\nhelp: did you mean: `runtime.workr` → `runtime.worker`",
  "relatedInformation": [
    {
      "location": {
        "uri": "file://[TMP]/kanban%20dir/aoe-plugin.toml",
        "range": {
          "start": {
            "line": 5,
            "character": 22
          },
          "end": {
            "line": 5,
            "character": 37
          }
        }
      },
      "message": "also unknown"
    }
  ]
}
"#]].raw()
    );
    client.change(&aoe, 2, CLEAN_AOE);
    let published = client.recv();
    assert_eq!(published["params"]["version"], 2);
    assert_data_eq!(show(&published), str![""].raw());

    // AWorld: the loader's refusal with the first use as related information.
    let aworld = tmp.path().join("aw/.aworld-plugin/plugin.json");
    std::fs::create_dir_all(aworld.parent().unwrap()).unwrap();
    client.open(
        &aworld,
        "{\"id\": \"a\", \"version\": \"1\",\n \"entrypoints\": {\"commands\": [{\"id\": \"x\"}, {\"id\": \"x\"}]}}\n",
    );
    assert_data_eq!(show(&client.recv()), str![[r#"
1:50-1:53 error plugins::aworld::duplicate_entrypoint
  | duplicate entrypoint id: commands:x
  | note: further checks skipped until this is fixed: the loader's later checks, the target containment check and lints
  related 1:37-1:40: first used here

"#]].raw());

    // protoAgent: the entry module is looked up on disk beside the buffer's file, and
    // saving re-checks it.
    let proto = tmp.path().join("pa/protoagent.plugin.yaml");
    std::fs::create_dir_all(proto.parent().unwrap()).unwrap();
    let yaml = "id: demo\nname: Demo\nversion: \"1.0\"\nnmae: dup\n";
    client.open(&proto, yaml);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
0:4-0:8 error plugins::protoagent::entrypoint
  | no entry module (expected __init__.py or plugin.py)
  | this plugin has no module to import
  | help: add __init__.py with a `register(registry)` function, or set `entrypoint`
3:0-3:4 warning plugins::protoagent::unknown_key
  | unknown key `nmae` in the manifest is ignored by the host
  | help: did you mean `name`?

"#]]
        .raw()
    );
    std::fs::write(
        proto.with_file_name("__init__.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&proto) } }),
    );
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
3:0-3:4 warning plugins::protoagent::unknown_key
  | unknown key `nmae` in the manifest is ignored by the host
  | help: did you mean `name`?

"#]]
        .raw()
    );
    client.change(&proto, 2, "id: demo\nname: Demo\nversion: \"1.0\"\n");
    assert_data_eq!(show(&client.recv()), str![""].raw());

    // Over the validator's size cap: refused unread, as `validate` refuses the file.
    let big = format!("{CLEAN_AOE}# {}\n", "x".repeat(1024 * 1024));
    client.change(&aoe, 3, &big);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
0:0-0:0 error plugins::file::too_large
  | aoe-plugin.toml is over 1 MiB

"#]]
        .raw()
    );
    client.change(&aoe, 4, CLEAN_AOE);
    assert_data_eq!(show(&client.recv()), str![""].raw());

    // Closing clears the document's diagnostics.
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri(&aworld) } }),
    );
    let cleared = client.recv();
    assert_eq!(
        cleared["params"],
        json!({ "uri": uri(&aworld), "diagnostics": [] })
    );

    client.request("shutdown", Value::Null);
    client.recv();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 0);
}

/// `--strict` and `-A` as `validate` takes them; an unknown code is refused at start.
#[test]
fn strict_and_allow_apply_to_the_published_diagnostics() {
    let tmp = tempfile::tempdir().unwrap();
    let aoe = tmp.path().join("aoe-plugin.toml");
    let broken = CLEAN_AOE
        .replace("version = \"0.1.0\"", "version = \"é1\"")
        .replace("[\"runtime.worker\"]", "[\"runtime.workr\"]");
    let mut client = Client::start_with(
        tmp.path(),
        &["--strict", "-A", "plugins::aoe::version_not_semver"],
    );
    client.initialize();
    client.open(&aoe, &broken);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
5:16-5:31 error plugins::aoe::unknown_capability
  | plugin requests capabilities this host does not support: runtime.workr; upgrade aoe
  | not a capability of aoe 1.19.0
  | help: did you mean: `runtime.workr` → `runtime.worker`
13:11-13:25 error plugins::aoe::entrypoint
  | runtime command program "./bin/worker" does not exist and no build step creates it
  | help: commit the program or add a `[[runtime.build]]` step that produces it

"#]]
        .raw()
    );

    Plugins::new()
        .args(["lsp", "-A", "plugins::aoe::nope"])
        .stdin(Stdio::null())
        .run()
        .expect(
            2,
            "",
            str![[r#"
plugins::usage::invalid_argument

  × unknown diagnostic code `plugins::aoe::nope`
  help: `--allow` takes a full code, like `plugins::aoe::version_not_semver`; docs/diagnostics.md
        lists them

"#]],
        );
}

/// Apply LSP `TextEdit`s (UTF-16 positions) to `text`, last first.
fn apply_edits(text: &str, edits: &Value) -> String {
    let offset = |p: &Value| {
        let line = usize::try_from(p["line"].as_u64().unwrap()).unwrap();
        let character = usize::try_from(p["character"].as_u64().unwrap()).unwrap();
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= character {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut edits: Vec<&Value> = edits.as_array().unwrap().iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut out = text.to_owned();
    for e in edits {
        let (a, b) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        out.replace_range(a..b, e["newText"].as_str().unwrap());
    }
    out
}

/// Code actions as lines: title, kind, preferred, the edits.
fn show_actions(actions: &Value) -> String {
    let mut out = String::new();
    for a in actions.as_array().unwrap() {
        out.push_str(&format!(
            "{} [{}{}] for {}\n",
            a["title"].as_str().unwrap(),
            a["kind"].as_str().unwrap(),
            if a["isPreferred"] == true {
                ", preferred"
            } else {
                ""
            },
            a["diagnostics"][0]["code"].as_str().unwrap(),
        ));
        for edits in a["edit"]["changes"].as_object().unwrap().values() {
            for e in edits.as_array().unwrap() {
                let r = &e["range"];
                out.push_str(&format!(
                    "  {}:{}-{}:{} -> {}\n",
                    r["start"]["line"],
                    r["start"]["character"],
                    r["end"]["line"],
                    r["end"]["character"],
                    e["newText"]
                ));
            }
        }
    }
    out
}

fn range(a: u64, b: u64, c: u64, d: u64) -> Value {
    json!({ "start": { "line": a, "character": b }, "end": { "line": c, "character": d } })
}

/// The did-you-mean fixes as `quickfix` code actions: applied by the client,
/// the diagnostic goes away. Requests the server cannot answer get an empty
/// result or an error, never a crash.
#[test]
fn code_actions_apply_the_did_you_mean_fixes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut client = Client::start(tmp.path());
    client.initialize();

    // aoe: two misspelt capabilities (one fix each) after an emoji in a comment.
    let aoe = tmp.path().join("k/aoe-plugin.toml");
    std::fs::create_dir_all(aoe.parent().unwrap().join("bin")).unwrap();
    std::fs::write(aoe.parent().unwrap().join("bin/worker"), "#!/bin/sh\n").unwrap();
    let broken = CLEAN_AOE.replace(
        "capabilities = [\"runtime.worker\"]",
        "capabilities = [\"runtime.workr\", \"😀\", \"notificatons\"]",
    );
    client.open(&aoe, &broken);
    assert_data_eq!(show(&client.recv()), str![[r#"
5:16-5:31 warning plugins::aoe::unknown_capability
  | plugin requests capabilities this host does not support: runtime.workr, 😀, notificatons; upgrade aoe
  | not a capability of aoe 1.19.0
  | help: did you mean: `runtime.workr` → `runtime.worker`, `notificatons` → `notifications`
  related 5:33-5:37: also unknown

"#]].raw());
    let id = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&aoe) }, "range": range(5, 17, 5, 17), "context": { "diagnostics": [] } }),
    );
    let answer = client.recv();
    assert_eq!(answer["id"], id);
    assert_data_eq!(
        show_actions(&answer["result"]),
        str![[r#"
Replace `runtime.workr` with `runtime.worker` [quickfix] for plugins::aoe::unknown_capability
  5:17-5:30 -> "runtime.worker"
Replace `notificatons` with `notifications` [quickfix] for plugins::aoe::unknown_capability
  5:40-5:52 -> "notifications"

"#]]
        .raw()
    );
    // Apply every edit the actions offer: the diagnostic is gone but for 😀.
    let edits: Vec<Value> = answer["result"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["edit"]["changes"][uri(&aoe)].as_array().unwrap().clone())
        .collect();
    let fixed = apply_edits(&broken, &Value::Array(edits));
    assert!(
        fixed.contains("[\"runtime.worker\", \"😀\", \"notifications\"]"),
        "{fixed}"
    );
    client.change(&aoe, 2, &fixed);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
5:34-5:38 warning plugins::aoe::unknown_capability
  | plugin requests capabilities this host does not support: 😀; upgrade aoe
  | not a capability of aoe 1.19.0

"#]]
        .raw()
    );
    // Away from any fix, and for kinds other than quickfix: nothing.
    client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&aoe) }, "range": range(0, 0, 0, 0), "context": { "diagnostics": [] } }),
    );
    assert_eq!(client.recv()["result"], json!([]));

    // protoAgent: a misspelt key, fixed as the client types (no save).
    let proto = tmp.path().join("pa/protoagent.plugin.yaml");
    std::fs::create_dir_all(proto.parent().unwrap()).unwrap();
    std::fs::write(
        proto.with_file_name("__init__.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    let yaml = "id: demo\nname: Demo\nversion: \"1.0\"\n'descripton': Hi\n";
    client.open(&proto, yaml);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
3:0-3:12 warning plugins::protoagent::unknown_key
  | unknown key `descripton` in the manifest is ignored by the host
  | help: did you mean `description`?

"#]]
        .raw()
    );
    client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&proto) }, "range": range(3, 2, 3, 2), "context": { "diagnostics": [], "only": ["quickfix"] } }),
    );
    let actions = client.recv()["result"].clone();
    assert_data_eq!(
        show_actions(&actions),
        str![[r#"
Replace `descripton` with `description` [quickfix, preferred] for plugins::protoagent::unknown_key
  3:1-3:11 -> "description"

"#]]
        .raw()
    );
    let fixed = apply_edits(yaml, &actions[0]["edit"]["changes"][uri(&proto)]);
    assert_eq!(
        fixed,
        "id: demo\nname: Demo\nversion: \"1.0\"\n'description': Hi\n"
    );
    client.change(&proto, 2, &fixed);
    assert_data_eq!(show(&client.recv()), str![""].raw());
    client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&proto) }, "range": range(1, 0, 1, 4), "context": { "diagnostics": [], "only": ["refactor"] } }),
    );
    assert_eq!(client.recv()["result"], json!([]));

    // protoAgent: a quoted boolean gets its one boolean, written bare.
    let quoted = "id: demo\nname: Demo\nversion: \"1.0\"\nenabled: \"no\"\n";
    client.change(&proto, 3, quoted);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
3:9-3:13 warning plugins::protoagent::truthy_string
  | `enabled` is a str, which Python's bool() reads as true
  | help: write `enabled: false` (unquoted); as written, the host treats it as true

"#]]
        .raw()
    );
    client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&proto) }, "range": range(3, 10, 3, 10), "context": { "diagnostics": [] } }),
    );
    let actions = client.recv()["result"].clone();
    assert_data_eq!(
        show_actions(&actions),
        str![[r#"
Replace `"no"` with `false` [quickfix, preferred] for plugins::protoagent::truthy_string
  3:9-3:13 -> "false"

"#]]
        .raw()
    );
    let fixed = apply_edits(quoted, &actions[0]["edit"]["changes"][uri(&proto)]);
    assert_eq!(
        fixed,
        "id: demo\nname: Demo\nversion: \"1.0\"\nenabled: false\n"
    );
    client.change(&proto, 4, &fixed);
    assert_data_eq!(show(&client.recv()), str![""].raw());

    // Hostile requests: an unopened document, positions far past the text or
    // not positions at all. Empty answers and InvalidParams errors; the server stays up.
    let nowhere = json!({ "uri": uri(&tmp.path().join("nope/aoe-plugin.toml")) });
    let mut hostile = String::new();
    for (method, params) in [
        (
            "textDocument/codeAction",
            json!({ "textDocument": nowhere, "range": range(0, 0, 0, 0), "context": {} }),
        ),
        (
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri(&aoe) }, "range": range(1 << 40, 0, u64::MAX, u64::MAX), "context": {} }),
        ),
        (
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri(&aoe) }, "range": { "start": { "line": -1, "character": 0 }, "end": "x" } }),
        ),
        (
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri(&aoe) } }),
        ),
        ("textDocument/codeAction", json!(null)),
        (
            "textDocument/hover",
            json!({ "textDocument": nowhere, "position": { "line": 0, "character": 0 } }),
        ),
        (
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri(&aoe) }, "position": { "line": 0.5, "character": 0 } }),
        ),
        (
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri(&aoe) }, "position": { "line": u64::MAX, "character": u64::MAX } }),
        ),
        (
            "textDocument/completion",
            json!({ "textDocument": nowhere, "position": { "line": 0, "character": 0 } }),
        ),
        (
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri(&aoe) }, "position": { "line": 99_999, "character": 99_999 } }),
        ),
        (
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri(&aoe) }, "position": [] }),
        ),
    ] {
        let id = client.request(method, params);
        let answer = client.recv();
        assert_eq!(answer["id"], id);
        let what = match (&answer["result"], &answer["error"]) {
            (Value::Array(items), _) if items.is_empty() => "[]".to_owned(),
            (Value::Array(_) | Value::Object(_), _) => "an answer".to_owned(),
            (Value::Null, Value::Null) => "null".to_owned(),
            (_, error) => error.to_string(),
        };
        hostile.push_str(&format!("{method}: {what}\n"));
    }
    assert_data_eq!(hostile, str![[r#"
textDocument/codeAction: []
textDocument/codeAction: []
textDocument/codeAction: {"code":-32602,"message":"/range/start must be a position with non-negative integer `line` and `character`"}
textDocument/codeAction: {"code":-32602,"message":"/range/start must be a position with non-negative integer `line` and `character`"}
textDocument/codeAction: []
textDocument/hover: null
textDocument/hover: {"code":-32602,"message":"/position must be a position with non-negative integer `line` and `character`"}
textDocument/hover: null
textDocument/completion: []
textDocument/completion: an answer
textDocument/completion: {"code":-32602,"message":"/position must be a position with non-negative integer `line` and `character`"}

"#]].raw());
    client.request("shutdown", Value::Null);
    client.recv();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 0);
}

/// Hover: a diagnostic's code documentation (its section of
/// docs/diagnostics.md) and a key's schema description. Completion: the
/// schema's keys for the table, mapping or object at the cursor, less those
/// already there, in all three formats as they are being typed.
#[test]
fn hover_and_completion_come_from_the_docs_and_schemas() {
    let tmp = tempfile::tempdir().unwrap();
    let mut client = Client::start(tmp.path());
    client.initialize();
    let aoe = tmp.path().join("k/aoe-plugin.toml");
    std::fs::create_dir_all(aoe.parent().unwrap().join("bin")).unwrap();
    std::fs::write(aoe.parent().unwrap().join("bin/worker"), "#!/bin/sh\n").unwrap();
    let text = CLEAN_AOE.replace("version = \"0.1.0\"", "version = \"v1\"");
    client.open(&aoe, &text);
    client.recv();
    let hover = |client: &mut Client, path: &Path, line: u64, character: u64| -> String {
        client.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri(path) }, "position": { "line": line, "character": character } }),
        );
        let answer = client.recv();
        let r = &answer["result"];
        if r.is_null() {
            return "null\n".to_owned();
        }
        format!(
            "{}:{}-{}:{} {}\n{}\n",
            r["range"]["start"]["line"],
            r["range"]["start"]["character"],
            r["range"]["end"]["line"],
            r["range"]["end"]["character"],
            r["contents"]["kind"].as_str().unwrap(),
            r["contents"]["value"].as_str().unwrap()
        )
    };
    // On the version's value: the warning's documentation.
    assert_data_eq!(
        hover(&mut client, &aoe, 2, 12),
        str![[r#"
2:10-2:14 markdown
**`plugins::aoe::version_not_semver`** (warning)

`version` is not semver. The host does not check, but updates and the featured index compare versions.

```toml
version = "v1"
```

```text
version "v1" is not a semantic version
```

"#]]
        .raw()
    );
    // On a key: its description from the schema; on a blank line, nothing.
    assert_data_eq!(
        hover(&mut client, &aoe, 12, 1),
        str![[r#"
12:0-12:4 markdown
**`runtime.kind`**: command: run argv from the plugin directory; release-binary: download a prebuilt worker from the release

"#]]
        .raw()
    );
    assert_data_eq!(
        hover(&mut client, &aoe, 6, 0),
        str![[r#"
null

"#]]
        .raw()
    );

    let complete = |client: &mut Client, path: &Path, line: u64, character: u64| -> String {
        client.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri(path) }, "position": { "line": line, "character": character } }),
        );
        let answer = client.recv();
        let items = answer["result"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut out = String::new();
        for item in items {
            out.push_str(&format!(
                "{}{}: {}\n",
                item["label"].as_str().unwrap(),
                item.get("insertText")
                    .map_or_else(String::new, |t| format!(" (insert {t})")),
                item["documentation"]["value"]
                    .as_str()
                    .unwrap_or("-")
                    .lines()
                    .next()
                    .unwrap_or_default()
            ));
        }
        out
    };
    // aoe: under [runtime], typing a new key.
    let typing = text.replace(
        "command = [\"./bin/worker\"]",
        "command = [\"./bin/worker\"]\nbu",
    );
    client.change(&aoe, 2, &typing);
    client.recv();
    assert_data_eq!(
        complete(&mut client, &aoe, 14, 2),
        str![[r#"
system: argv[0] is a bare program name resolved on PATH instead of a plugin-relative path
build: Build steps run at install, in order, in the plugin dir (steps for other platforms are skipped); build into .aoe-build/
asset: release asset name template (${os}, ${arch}, ${version})
bin: plugin-relative path of the worker binary (required for a .tar.gz/.tgz asset)

"#]]
        .raw()
    );

    // aoe: a new top-level key, before the headers: `commands` and `runtime` are there as
    // `[[commands]]` and `[runtime]`, so they are not offered (nor the keys above).
    let typing = text.replace(
        "capabilities = [\"runtime.worker\"]\n",
        "capabilities = [\"runtime.worker\"]\nr\n",
    );
    client.change(&aoe, 3, &typing);
    client.recv();
    let top = complete(&mut client, &aoe, 6, 1);
    let labels: Vec<&str> = top.lines().filter_map(|l| l.split(':').next()).collect();
    assert!(
        labels.contains(&"ui") && labels.contains(&"settings"),
        "{top}"
    );
    for there in ["commands", "runtime", "id", "name", "capabilities"] {
        assert!(!labels.contains(&there), "{there} is offered again: {top}");
    }

    // protoAgent: inside a settings item, mid-edit.
    let proto = tmp.path().join("pa/protoagent.plugin.yaml");
    std::fs::create_dir_all(proto.parent().unwrap()).unwrap();
    client.open(
        &proto,
        "id: demo\nname: Demo\nsettings:\n  - key: a\n    la\n",
    );
    client.recv();
    assert_data_eq!(
        complete(&mut client, &proto, 4, 6),
        str![[r#"
label: Field label in the Settings UI (default: the key)
type: Widget type (free-form: the host does not check it at load; on save it checks only bool, number and path)
description: Help text shown with the field
restart: Changing the value needs a restart
options: Choices of a select (not enforced for plugin keys)
minimum: Lowest value of a number field
maximum: Highest value of a number field
group: Group label in the Settings UI (default: the section name, title-cased)
path_kind: With `type: path`: the Browse picker chooses a file, else a directory
depends_on: Show the field only when another setting is truthy, equals a value, or is in a list
required: Soft gate: while blank, the plugin loads but its tools answer that it needs setup
tab: Id of a `settings_tabs` entry without `path` (protoAgent 0.218; unknown or path-backed tabs fall back to Configuration)
multiple: With `type: path`: a list of paths, stored newline-joined (protoAgent 0.218)
spawns: Names a program the plugin runs; the agent's set_config tool refuses to write it (protoAgent 0.218)

"#]]
        .raw()
    );

    // AWorld: an entrypoint object, its key half typed; the key gets its quotes.
    let aworld = tmp.path().join("aw/.aworld-plugin/plugin.json");
    std::fs::create_dir_all(aworld.parent().unwrap()).unwrap();
    client.open(
        &aworld,
        "{\"id\": \"a\", \"entrypoints\": {\"commands\": [{\"id\": \"x\", }]}}",
    );
    client.recv();
    assert_data_eq!(
        complete(&mut client, &aworld, 0, 53),
        str![[r#"
name (insert "\"name\""): Name (a command's name; defaults to the id)
target (insert "\"target\""): Path of the entrypoint's file, relative to the plugin root (must stay inside it)
scope (insert "\"scope\""): State scope: global, session, or workspace (the default; any other value)
visibility (insert "\"visibility\""): public (the default) or hidden, which hides a command from listings
description (insert "\"description\""): Help text (a slash command's help)
metadata (insert "\"metadata\""): Kind-specific settings, e.g. a hook's hook_point
permissions (insert "\"permissions\""): Permissions, e.g. allowed_tools for a command

"#]]
        .raw()
    );

    client.request("shutdown", Value::Null);
    client.recv();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 0);
}

/// Files a manifest names change on disk: with a client that watches files,
/// the server registers a watcher and validates the manifests whose plugin
/// holds a changed file again.
#[test]
fn watched_file_changes_revalidate_the_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let mut client = Client::start(tmp.path());
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": null, "capabilities": {
            "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } },
        } }),
    );
    client.recv();
    client.notify("initialized", json!({}));
    let register = client.recv();
    assert_data_eq!(
        register.to_string(),
        str![[r#"{"jsonrpc":"2.0","id":"plugins/watch","method":"client/registerCapability","params":{"registrations":[{"id":"plugins/watched-files","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*"}]}}]}}"#]]
            .raw()
    );
    client.send(&json!({ "jsonrpc": "2.0", "id": "plugins/watch", "result": null }));

    let aoe = tmp.path().join("k/aoe-plugin.toml");
    std::fs::create_dir_all(aoe.parent().unwrap()).unwrap();
    client.open(&aoe, CLEAN_AOE);
    assert_data_eq!(
        show(&client.recv()),
        str![[r#"
13:11-13:25 warning plugins::aoe::entrypoint
  | runtime command program "./bin/worker" does not exist and no build step creates it
  | help: commit the program or add a `[[runtime.build]]` step that produces it

"#]]
        .raw()
    );
    // The worker appears: one change notification, and the error is gone.
    let worker = tmp.path().join("k/bin/worker");
    std::fs::create_dir_all(worker.parent().unwrap()).unwrap();
    std::fs::write(&worker, "#!/bin/sh\n").unwrap();
    let changed = |paths: &[&Path]| json!({ "changes": paths.iter().map(|p| json!({ "uri": uri(p), "type": 1 })).collect::<Vec<_>>() });
    client.notify(
        "workspace/didChangeWatchedFiles",
        changed(&[&tmp.path().join("elsewhere/x"), &worker]),
    );
    assert_data_eq!(show(&client.recv()), str![""].raw());
    // Changes outside the plugin, to the manifest itself (the buffer wins), or
    // malformed: nothing is published; the next message is the shutdown's answer.
    client.notify(
        "workspace/didChangeWatchedFiles",
        changed(&[&tmp.path().join("elsewhere/x"), &aoe]),
    );
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": 5 }, "x", { "uri": "file:///%zz" }] }),
    );
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": "all" }),
    );
    let id = client.request("shutdown", Value::Null);
    assert_eq!(client.recv()["id"], id);
    client.notify("exit", Value::Null);
    assert_eq!(client.wait(), 0);
}

/// Neovim, or `None` after one `skipped` line (a failure when `CI` is set).
fn nvim() -> Option<&'static str> {
    let found = Command::new("nvim")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("nvim");
    }
    skip(
        "nvim is not installed",
        "the editor tests (.ci/run installs it)",
    );
    None
}

#[test]
fn neovim_shows_the_diagnostics_and_clears_them() {
    let Some(nvim) = nvim() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("kanban");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/worker"), "#!/bin/sh\n").unwrap();
    let broken = CLEAN_AOE
        .replace("version = \"0.1.0\"", "version = \"é1\"")
        .replace("[\"runtime.worker\"]", "[\"😀\", \"runtime.workr\"]");
    std::fs::write(root.join("aoe-plugin.toml"), &broken).unwrap();
    std::fs::write(tmp.path().join("fixed.toml"), CLEAN_AOE).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/client.lua");
    let home = tmp.path().join("home");
    let (code, stdout, stderr) = run(Command::new(nvim)
        .args(["--headless", "-n", "-u", "NONE", "-i", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("PLUGINS_BIN", BIN)
        .env("PLUGINS_LSP_FILE", root.join("aoe-plugin.toml"))
        .env("PLUGINS_LSP_FIXED", tmp.path().join("fixed.toml"))
        // Neovim's own files (the LSP log) stay in the temp dir.
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .current_dir(tmp.path()));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let doc: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    // What the server published, as the editor received it.
    let published = json!({ "params": { "diagnostics": doc["published"] } });
    assert_data_eq!(show(&published), str![[r#"
2:10-2:14 warning plugins::aoe::version_not_semver
  | version "é1" is not a semantic version
  | help: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
5:16-5:20 warning plugins::aoe::unknown_capability
  | plugin requests capabilities this host does not support: 😀, runtime.workr; upgrade aoe
  | not a capability of aoe 1.19.0
  | help: did you mean: `runtime.workr` → `runtime.worker`
  related 5:22-5:37: also unknown

"#]].raw());
    // What Neovim made of it: byte columns in its buffer (the UTF-16 columns
    // converted back), 0-based lines; severity 1 is error, 2 warning.
    let stored: Vec<String> = doc["stored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}:{}-{}:{} severity {} {}",
                d["lnum"],
                d["col"],
                d["end_lnum"],
                d["end_col"],
                d["severity"],
                d["code"].as_str().unwrap()
            )
        })
        .collect();
    assert_data_eq!(
        stored.join("\n"),
        str![[r#"
2:10-2:15 severity 2 plugins::aoe::version_not_semver
5:16-5:22 severity 2 plugins::aoe::unknown_capability
"#]]
        .raw()
    );
    // The did-you-mean's code action, applied by Neovim: the capability fixed
    // in the buffer, and the diagnostic republished without it.
    assert_data_eq!(
        serde_json::to_string_pretty(&json!({
            "actions": doc["actions"],
            "fixed_line": doc["fixed_line"],
            "after_action": doc["after_action"],
            "hover": doc["hover"],
            "completion": doc["completion"],
        }))
        .unwrap(),
        str![[r#"
{
  "actions": [
    "Replace `runtime.workr` with `runtime.worker`"
  ],
  "fixed_line": "capabilities = [\"😀\", \"runtime.worker\"]",
  "after_action": [
    "plugins::aoe::version_not_semver",
    "plugins::aoe::unknown_capability"
  ],
  "hover": "**`plugins::aoe::unknown_capability`** (warning)",
  "completion": [
    "system",
    "build",
    "asset",
    "bin"
  ]
}
"#]]
        .raw()
    );
    // The buffer was fixed unsaved, the diagnostics cleared, and the server left
    // after shutdown and exit.
    assert_eq!(
        (&doc["cleared"], &doc["modified"], &doc["exit_code"]),
        (&json!(true), &json!(true), &json!(0))
    );
}
