//! `plugins lsp`: a language server over stdio that publishes the same
//! diagnostics `plugins validate --stdin --stdin-filename PATH` gives, for
//! each open manifest, as its text changes, and answers about it: the
//! did-you-mean fixes as code actions, hover and key completion
//! (`features`, `complete`).
//!
//! One synchronous loop (no async runtime): a thread reads and frames
//! messages, the loop answers them in order and, once it has handled every
//! message already read, validates the documents they changed and publishes.
//! Documents are synced in full (incremental edits are applied too, in case a
//! client sends them). Nothing here panics on what the client sends: bad
//! framing or JSON gets a parse error, unknown requests `MethodNotFound`, and
//! the loop goes on.

mod complete;
mod convert;
mod features;
mod rpc;
mod text;

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc;

use serde_json::{Value, json};

use crate::dialect::Dialect;
use crate::validate::{MAX_MANIFEST_BYTES, ValidateOptions, buffer_root, validate_bytes};

// JSON-RPC and LSP error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const SERVER_NOT_INITIALIZED: i64 = -32002;
const INVALID_PARAMS: i64 = -32602;

/// A message body may hold a whole manifest, JSON-escaped (up to 6 bytes a
/// byte), plus the envelope.
const MAX_BODY: u64 = 6 * MAX_MANIFEST_BYTES + 64 * 1024;

/// How the session ended, which decides the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// `shutdown`, then `exit`: exit code 0.
    Clean,
    /// `exit` without `shutdown`, or the input closed: exit code 1.
    Abruptly,
}

/// An open manifest.
struct Document {
    text: Text,
    version: Option<i64>,
    path: PathBuf,
    dialect: Dialect,
    /// What its last validation found, in bytes of the text it had then
    /// (the current text unless the document is in `dirty`).
    found: Vec<convert::Found>,
}

/// A document's text, unless it is over the validator's size cap: then only
/// the refusal is kept.
enum Text {
    Kept(String),
    TooLarge(Vec<Value>),
}

struct Server<'a, W: Write> {
    output: W,
    opts: &'a ValidateOptions,
    documents: HashMap<String, Document>,
    /// Documents changed since they were last validated, in order.
    dirty: Vec<String>,
    initialized: bool,
    /// The client registers file watchers when asked (`client/registerCapability`).
    watches: bool,
    shutdown: bool,
}

/// Messages read ahead of the one being handled, at most (each is at most
/// [`MAX_BODY`]).
const READ_AHEAD: usize = 8;

/// Serve one client until `exit` or the end of `input`.
///
/// A thread reads and frames messages ahead; the loop handles every message
/// already read before it validates, so a burst of edits (typing faster than
/// a large manifest validates) is validated once, at its last version.
pub fn serve(
    input: impl Read + Send + 'static,
    output: impl Write,
    opts: &ValidateOptions,
) -> io::Result<Ended> {
    let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
    std::thread::spawn(move || {
        let mut input = io::BufReader::with_capacity(64 * 1024, input);
        let mut framing = rpc::Framing::default();
        loop {
            let read = rpc::read_message(&mut input, MAX_BODY, &mut framing);
            let last = !matches!(
                read,
                Ok(rpc::Incoming::Message(_) | rpc::Incoming::Malformed(_))
            );
            // The server stopped listening (it exited): stop reading.
            if tx.send(read).is_err() || last {
                return;
            }
        }
    });
    let mut server = Server {
        output,
        opts,
        documents: HashMap::new(),
        dirty: Vec::new(),
        initialized: false,
        watches: false,
        shutdown: false,
    };
    loop {
        // Wait for a message, then take the ones already read too.
        let mut next = Some(rx.recv().unwrap_or(Ok(rpc::Incoming::Eof)));
        while let Some(read) = next.take() {
            match read? {
                rpc::Incoming::Eof => return Ok(Ended::Abruptly),
                rpc::Incoming::Malformed(problem) => {
                    server.respond_error(Value::Null, PARSE_ERROR, &problem)?;
                }
                rpc::Incoming::Message(message) => {
                    if let Some(ended) = server.handle(message)? {
                        return Ok(ended);
                    }
                }
            }
            next = rx.try_recv().ok();
        }
        for uri in std::mem::take(&mut server.dirty) {
            server.publish(&uri)?;
        }
    }
}

impl<W: Write> Server<'_, W> {
    fn handle(&mut self, message: Value) -> io::Result<Option<Ended>> {
        let id = message.get("id").cloned();
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            // A response to a request we never send, or not a message at all.
            if message.get("result").is_none() && message.get("error").is_none() {
                self.respond_error(
                    id.unwrap_or(Value::Null),
                    INVALID_REQUEST,
                    "not a JSON-RPC request or notification",
                )?;
            }
            return Ok(None);
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        if method == "exit" {
            return Ok(Some(if self.shutdown {
                Ended::Clean
            } else {
                Ended::Abruptly
            }));
        }
        let Some(id) = id else {
            if self.initialized && !self.shutdown {
                self.notification(method, &params)?;
            }
            return Ok(None);
        };
        if method == "initialize" {
            self.initialized = true;
            self.watches = params
                .pointer("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration")
                == Some(&Value::Bool(true));
            return self.respond(id, initialize_result()).map(|()| None);
        }
        if !self.initialized {
            return self
                .respond_error(id, SERVER_NOT_INITIALIZED, "initialize first")
                .map(|()| None);
        }
        if self.shutdown {
            return self
                .respond_error(id, INVALID_REQUEST, "the server is shutting down")
                .map(|()| None);
        }
        match method {
            "shutdown" => {
                self.shutdown = true;
                self.documents.clear();
                self.respond(id, Value::Null)?;
            }
            "textDocument/codeAction" | "textDocument/hover" | "textDocument/completion" => {
                let uri = params.pointer("/textDocument/uri").and_then(Value::as_str);
                // Answer about the text as it is now: validate a pending change first.
                if let Some(uri) = uri.filter(|u| self.dirty.iter().any(|d| d == u)) {
                    let uri = uri.to_owned();
                    self.dirty.retain(|d| *d != uri);
                    self.publish(&uri)?;
                }
                let doc = uri.and_then(|u| self.documents.get(u));
                let answer = match method {
                    "textDocument/codeAction" => features::code_actions(doc, &params),
                    "textDocument/hover" => features::hover(doc, &params, self.opts),
                    _ => complete::completion(doc, &params, self.opts),
                };
                match answer {
                    Ok(result) => self.respond(id, result)?,
                    Err(problem) => self.respond_error(id, INVALID_PARAMS, &problem.to_string())?,
                }
            }
            _ => self.respond_error(
                id,
                METHOD_NOT_FOUND,
                &format!("method {method:?} is not supported"),
            )?,
        }
        Ok(None)
    }

    fn notification(&mut self, method: &str, params: &Value) -> io::Result<()> {
        match method {
            "initialized" if self.watches => {
                self.watches = false; // Once, however often the client says it.
                return self.watch();
            }
            "workspace/didChangeWatchedFiles" => {
                self.files_changed(params);
                return Ok(());
            }
            _ => {}
        }
        let Some(uri) = params
            .pointer("/textDocument/uri")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Ok(()); // `initialized`, `$/cancelRequest`, settings: nothing to do.
        };
        let version = params
            .pointer("/textDocument/version")
            .and_then(Value::as_i64);
        match method {
            "textDocument/didOpen" => self.opened(uri, version, params),
            "textDocument/didChange" => self.changed(uri, version, params),
            "textDocument/didSave" => {
                // Files the manifest names may have changed on disk too.
                let Some(doc) = self.documents.get_mut(&uri) else {
                    return Ok(());
                };
                if let Some(text) = params.get("text").and_then(Value::as_str) {
                    doc.text = Text::Kept(text.to_owned());
                }
                self.mark(uri);
                Ok(())
            }
            "textDocument/didClose" => {
                self.dirty.retain(|d| *d != uri);
                if self.documents.remove(&uri).is_some() {
                    self.notify(
                        "textDocument/publishDiagnostics",
                        json!({ "uri": uri, "diagnostics": [] }),
                    )?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `textDocument/didOpen`: keep a manifest's text (other files are not ours).
    fn opened(&mut self, uri: String, version: Option<i64>, params: &Value) -> io::Result<()> {
        let Some(text) = params.pointer("/textDocument/text").and_then(Value::as_str) else {
            return self.log(&format!("didOpen without text for {uri}"));
        };
        let Some(path) = text::uri_path(&uri) else {
            return Ok(());
        };
        let Some(dialect) = crate::dialect::from_manifest_path(&path) else {
            return Ok(()); // Not a manifest: a TOML/JSON/YAML file like any other.
        };
        self.documents.insert(
            uri.clone(),
            Document {
                text: Text::Kept(text.to_owned()),
                version,
                path,
                dialect,
                found: Vec::new(),
            },
        );
        self.mark(uri);
        Ok(())
    }

    /// `textDocument/didChange`: apply the changes to the kept text.
    fn changed(&mut self, uri: String, version: Option<i64>, params: &Value) -> io::Result<()> {
        let Some(doc) = self.documents.get_mut(&uri) else {
            return Ok(());
        };
        let changes = params
            .get("contentChanges")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for change in changes {
            match &mut doc.text {
                Text::Kept(text) => text::apply_change(text, change),
                // Only a whole new text can replace one that was not kept.
                Text::TooLarge(_) => {
                    if let (None, Some(text)) = (
                        change.get("range"),
                        change.get("text").and_then(Value::as_str),
                    ) {
                        doc.text = Text::Kept(text.to_owned());
                    }
                }
            }
        }
        doc.version = version.or(doc.version);
        self.mark(uri);
        Ok(())
    }

    /// Ask the client to report changes to files on disk: the workers, icons
    /// and entry modules manifests name (the answer needs no handling).
    fn watch(&mut self) -> io::Result<()> {
        let watcher = json!({ "globPattern": "**/*" });
        rpc::write_message(
            &mut self.output,
            &json!({
                "jsonrpc": "2.0",
                "id": "plugins/watch",
                "method": "client/registerCapability",
                "params": { "registrations": [{
                    "id": "plugins/watched-files",
                    "method": "workspace/didChangeWatchedFiles",
                    "registerOptions": { "watchers": [watcher] },
                }] },
            }),
        )
    }

    /// Files changed on disk: validate again each open manifest whose plugin
    /// root holds one (other than the manifest itself, whose buffer wins).
    fn files_changed(&mut self, params: &Value) {
        let changed: Vec<PathBuf> = params
            .get("changes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("uri")?.as_str())
            .filter_map(text::uri_path)
            .collect();
        let mut hit: Vec<String> = self
            .documents
            .iter()
            .filter(|(_, doc)| {
                let root = buffer_root(&doc.path, doc.dialect);
                root.is_absolute()
                    && changed
                        .iter()
                        .any(|p| p.starts_with(&root) && *p != doc.path)
            })
            .map(|(uri, _)| uri.clone())
            .collect();
        hit.sort();
        for uri in hit {
            self.mark(uri);
        }
    }

    /// Validate `uri` once the messages already read are handled.
    fn mark(&mut self, uri: String) {
        if !self.dirty.contains(&uri) {
            self.dirty.push(uri);
        }
    }

    /// Validate an open document as `validate --stdin --stdin-filename` does
    /// and publish what it found.
    fn publish(&mut self, uri: &str) -> io::Result<()> {
        let Some(doc) = self.documents.get_mut(uri) else {
            return Ok(());
        };
        let diagnostics = match &mut doc.text {
            Text::TooLarge(refusal) => refusal.clone(),
            Text::Kept(text) => {
                let oversized = text.len() as u64 > MAX_MANIFEST_BYTES;
                let bytes = if oversized {
                    std::mem::take(text).into_bytes()
                } else {
                    text.as_bytes().to_vec()
                };
                let report = validate_bytes(
                    &buffer_root(&doc.path, doc.dialect),
                    doc.dialect,
                    doc.path.clone(),
                    bytes,
                    self.opts,
                );
                doc.found = convert::diagnostics(&report, text, uri);
                let diagnostics: Vec<Value> = doc.found.iter().map(|f| f.lsp.clone()).collect();
                if oversized {
                    doc.found.clear();
                    doc.text = Text::TooLarge(diagnostics.clone());
                }
                diagnostics
            }
        };
        let mut params = json!({ "uri": uri, "diagnostics": diagnostics });
        if let Some(v) = doc.version {
            params["version"] = json!(v);
        }
        self.notify("textDocument/publishDiagnostics", params)
    }

    fn respond(&mut self, id: Value, result: Value) -> io::Result<()> {
        rpc::write_message(
            &mut self.output,
            &json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        )
    }

    fn respond_error(&mut self, id: Value, code: i64, message: &str) -> io::Result<()> {
        rpc::write_message(
            &mut self.output,
            &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }),
        )
    }

    fn notify(&mut self, method: &str, params: Value) -> io::Result<()> {
        rpc::write_message(
            &mut self.output,
            &json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        )
    }

    /// A message for the client's log (`window/logMessage`, type Warning).
    fn log(&mut self, message: &str) -> io::Result<()> {
        self.notify(
            "window/logMessage",
            json!({ "type": 2, "message": message }),
        )
    }
}

fn initialize_result() -> Value {
    json!({
        "capabilities": {
            "textDocumentSync": {
                "openClose": true,
                "change": 1, // Full
                "save": { "includeText": true },
            },
            "codeActionProvider": { "codeActionKinds": ["quickfix"] },
            "hoverProvider": true,
            "completionProvider": { "triggerCharacters": [] },
        },
        "serverInfo": { "name": "plugins", "version": env!("CARGO_PKG_VERSION") },
    })
}

#[cfg(test)]
mod tests;
